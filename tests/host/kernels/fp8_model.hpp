// A host model of the FP8 variants' arithmetic, written apart from the payload code (block by
// block, rank by rank), their test inputs, and the bound check of an output: for the twin tests
// (tests/host/kernels/test_twin_fp8.cpp) and the GPU tests (tests/gpu/test_fp8_gpu.cpp) alike.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "arbench/algo/fp8/fp8_bound.hpp"
#include "arbench/core/dtype.hpp"

namespace arbench::testing {

// inputs[p]: rank p's n elements as the dtype holds them (values exact in the dtype).
using RankValues = std::vector<std::vector<float>>;

inline RankValues fp8_inputs(std::uint64_t seed, int world, std::size_t n, DType t, algo::Fp8Inputs kind) {
  RankValues v(static_cast<std::size_t>(world), std::vector<float>(n));
  std::vector<std::uint8_t> one(4);
  for (int r = 0; r < world; ++r)
    for (std::size_t i = 0; i < n; ++i) {
      store_from_f32(one.data(), 0, t, algo::fp8_input(seed, r, i, kind));
      v[std::size_t(r)][i] = load_as_f32(one.data(), 0, t);
    }
  return v;
}

// The variants' arithmetic, element by element: per rank and 32-element block the scale of the
// block's finite amax, e4m3 codes, dequantized values summed in fp32 in rank order; two-shot
// quantizes each block of the sum again; one rounding to the dtype. Returns the output bytes.
inline std::vector<std::uint8_t> fp8_model(const RankValues& in, DType t, int quantizations) {
  const std::size_t n = in[0].size(), blk = std::size_t(algo::kFp8BlockElems);
  std::vector<std::uint8_t> out(n * dtype_size(t));
  auto quantize = [&](std::vector<float>& x) {  // in place: x -> dequantized e4m3 of its block
    float amax = 0;
    for (float v : x) amax = std::fmax(amax, algo::finite_abs(v));
    const int k = algo::fp8_scale_exp(amax);
    for (float& v : x) v = algo::e4m3_decode(algo::e4m3_encode(v * algo::pow2f(-k))) * algo::pow2f(k);
  };
  for (std::size_t b0 = 0; b0 < n; b0 += blk) {
    const std::size_t len = std::min(blk, n - b0);
    std::vector<float> sum(len, 0.0f);
    for (std::size_t p = 0; p < in.size(); ++p) {
      std::vector<float> x(in[p].begin() + long(b0), in[p].begin() + long(b0 + len));
      quantize(x);
      for (std::size_t i = 0; i < len; ++i) sum[i] = p == 0 ? x[i] : sum[i] + x[i];
    }
    if (quantizations == 2) quantize(sum);
    for (std::size_t i = 0; i < len; ++i) store_from_f32(out.data(), b0 + i, t, sum[i]);
  }
  return out;
}

// Elements of rank output `got` outside the bound of `ref` (NaN counts as outside).
inline std::size_t fp8_outside_bound(const std::vector<std::uint8_t>& got, DType t, const algo::Fp8Reference& ref,
                                     double* worst_ratio = nullptr) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < ref.exact.size(); ++i) {
    const double err = std::fabs(double(load_as_f32(got.data(), i, t)) - ref.exact[i]);
    if (!(err <= ref.bound[i])) ++bad;
    if (worst_ratio && ref.bound[i] > 0) *worst_ratio = std::max(*worst_ratio, err / ref.bound[i]);
  }
  return bad;
}

}  // namespace arbench::testing
