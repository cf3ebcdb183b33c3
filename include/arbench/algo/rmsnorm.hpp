// Residual add + RMSNorm of one token row, written once for every kernel and host twin of the
// allreduce_rmsnorm family (unfused norm kernel, fused-oneshot, fused-twoshot).
//
// The operation, per token row of width H, in this exact order (so every kernel, every twin and
// every rank produce the same bits):
//   1. s  = round_D( x_0 + x_1 + ... + x_{N-1} )   fp32 sum in rank order (reduce.hpp), rounded
//                                                  once to the dtype D. This is what an all-reduce
//                                                  writes to memory, so unfused == fused bitwise.
//   2. r  = round_D( float(s) + float(residual) )  -> residual_out (dtype D)
//   3. ss = sum of float(r)^2 over the row, fp32, in a fixed shape independent of the thread
//           count: pack k of the row goes to lane k % kNormLanes; each lane adds its packs in
//           increasing k, elements in index order (acc = acc + r*r, no FMA); then lanes are
//           combined by the pairwise tree lane[l] += lane[l + stride], stride = kNormLanes/2..1.
//   4. inv = 1 / sqrt( ss / H + eps )               fp32, each step correctly rounded
//   5. y  = round_D( (float(r) * inv) * float(w) )  -> norm_out (dtype D)
// y is computed from the ROUNDED r (like TensorRT-LLM and FlashInfer): what the next layer
// reads as residual is exactly what was normalised.
// Every fp32 step goes through fadd_rn/fmul_rn/fdiv_rn/fsqrt_rn, which are the IEEE
// round-to-nearest operations on both sides (device intrinsics forbid FMA contraction; host
// x86-64 SSE arithmetic is IEEE and the build does not enable FMA contraction).
// Range: ss must stay below FLT_MAX (|r| up to ~1e17 at H = 8192); fp16 inputs can never
// overflow it. eps > 0 keeps all-zero rows finite (y = 0).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "arbench/algo/faults.hpp"
#include "arbench/algo/mem_policy.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

// Lanes of the sum of squares: part of the math (not of the launch), so the result does not
// depend on how many threads run it. A block's thread count must divide kNormLanes.
inline constexpr int kNormLanes = 512;

ARB_HD float fadd_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
ARB_HD float fmul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
ARB_HD float fdiv_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
ARB_HD float fsqrt_rn(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

// Packs per token row (the last one partial when H is not a multiple of elements per pack).
ARB_HD_CONSTEXPR std::size_t row_packs(int hidden, DType t) {
  return pack_count(static_cast<std::size_t>(hidden), t);
}

// Pack k of token row `row` of a row-major [tokens][hidden] matrix of D at `base`. When H is a
// multiple of the elements per pack every row starts 16-byte aligned and the pack is one
// vector access; otherwise it is gathered element by element (zeros past the row's end).
template <DType D>
ARB_HD Pack load_row_pack(const void* base, int hidden, std::size_t row, std::size_t k) {
  using E = ElemOps<D>;
  const std::size_t h = static_cast<std::size_t>(hidden);
  const std::size_t per = static_cast<std::size_t>(E::kPerPack);
  if (h % per == 0) return load_pack<D>(base, row * (h / per) + k, (row + 1) * h);
  const std::size_t valid = elems_in_pack(k, h, D);
  const std::size_t first = row * h + k * per;
  Pack p{{0u, 0u, 0u, 0u}};
  if constexpr (E::kBytes == 4) {
    const auto* src = static_cast<const std::uint32_t*>(base) + first;
    ARB_UNROLL
    for (int i = 0; i < 4; ++i)
      if (static_cast<std::size_t>(i) < valid) p.w[i] = src[i];
  } else {
    const auto* src = static_cast<const std::uint16_t*>(base) + first;
    ARB_UNROLL
    for (int i = 0; i < 8; ++i)
      if (static_cast<std::size_t>(i) < valid) p.w[i >> 1] |= std::uint32_t{src[i]} << ((i & 1) * 16);
  }
  return p;
}

// Stores pack k of token row `row`; only the row's valid elements are written.
template <DType D>
ARB_HD void store_row_pack(void* base, int hidden, std::size_t row, std::size_t k, const Pack& p) {
  using E = ElemOps<D>;
  const std::size_t h = static_cast<std::size_t>(hidden);
  const std::size_t per = static_cast<std::size_t>(E::kPerPack);
  if (h % per == 0) return store_pack<D>(base, row * (h / per) + k, (row + 1) * h, p);
  const std::size_t valid = elems_in_pack(k, h, D);
  const std::size_t first = row * h + k * per;
  if constexpr (E::kBytes == 4) {
    auto* dst = static_cast<std::uint32_t*>(base) + first;
    ARB_UNROLL
    for (int i = 0; i < 4; ++i)
      if (static_cast<std::size_t>(i) < valid) dst[i] = p.w[i];
  } else {
    auto* dst = static_cast<std::uint16_t*>(base) + first;
    ARB_UNROLL
    for (int i = 0; i < 8; ++i)
      if (static_cast<std::size_t>(i) < valid) dst[i] = static_cast<std::uint16_t>(p.w[i >> 1] >> ((i & 1) * 16));
  }
}

// Step 2: r = round_D(s + residual), element-wise.
template <DType D>
ARB_HD Pack add_residual(const Pack& s, const Pack& res) {
  using E = ElemOps<D>;
  Pack r{{0u, 0u, 0u, 0u}};
  ARB_UNROLL
  for (int i = 0; i < E::kPerPack; ++i) E::set(r, i, fadd_rn(E::get(s, i), E::get(res, i)));
  return r;
}

// Step 3, one pack: acc + r_0^2 + r_1^2 + ... in element order (zeros past the row add nothing).
template <DType D>
ARB_HD float add_squares(const Pack& r, float acc) {
  using E = ElemOps<D>;
  ARB_UNROLL
  for (int i = 0; i < E::kPerPack; ++i) {
    const float v = E::get(r, i);
    acc = fadd_rn(acc, fmul_rn(v, v));
  }
  return acc;
}

// Step 4.
ARB_HD float rms_inv(float sum_squares, int hidden, float eps) {
  return fdiv_rn(1.0f, fsqrt_rn(fadd_rn(fdiv_rn(sum_squares, static_cast<float>(hidden)), eps)));
}

// Step 5: y = round_D((r * inv) * w), element-wise.
template <DType D>
ARB_HD Pack scale_pack(const Pack& r, const Pack& w, float inv) {
  using E = ElemOps<D>;
  Pack y{{0u, 0u, 0u, 0u}};
  ARB_UNROLL
  for (int i = 0; i < E::kPerPack; ++i) E::set(y, i, fmul_rn(fmul_rn(E::get(r, i), inv), E::get(w, i)));
  return y;
}

// Step 3's tree over lanes[0..kNormLanes) (every thread of the block calls it); returns ss to
// every thread. The shape is fixed, so 1 thread (twin) and 512 threads (kernel) agree bitwise.
template <class Mem>
ARB_HD float sum_lanes(float* lanes, const BlockCtx& c) {
  for (int stride = kNormLanes / 2; stride > 0; stride /= 2) {
    // The previous level (or the lanes' owners) finished writing. (The norm_tree_unsynced fault
    // of the mutation score keeps only the first of these barriers.)
    if (stride == kNormLanes / 2 || !planted<Mem>(Fault::norm_tree_unsynced)) Mem::block_sync();
    for (int l = c.thread; l < stride; l += c.threads) lanes[l] = fadd_rn(lanes[l], lanes[l + stride]);
  }
  Mem::block_sync();
  const float total = lanes[0];
  Mem::block_sync();  // everyone has read lanes[0] before the next row resets the lanes
  return total;
}

// Where one row's results go. residual, weight, norm_out, residual_out: this rank's [tokens][H]
// buffers (weight: one row). mirror_r / mirror_y: optional row-padded pack copies of r and y
// ([tokens][row_packs]), the all-gather source of fused-twoshot.
struct NormIo {
  const void* residual = nullptr;
  const void* weight = nullptr;
  void* norm_out = nullptr;
  void* residual_out = nullptr;
  Pack* mirror_r = nullptr;
  Pack* mirror_y = nullptr;
  int hidden = 0;
  float eps = 1e-6f;
};

// Steps 2-5 for token row `row`, by every thread of a block; sum_pack(k) returns step 1's s for
// pack k of the row (however the variant obtains it). `lanes` is kNormLanes floats of block-shared
// memory. Thread t handles packs t, t + threads, ... in both passes, so the second pass reads back
// r from residual_out that the same thread wrote (no block sync needed for it).
template <class Mem, DType D, class SumPack>
ARB_HD void add_norm_row(const NormIo& io, std::size_t row, const BlockCtx& c, float* lanes, SumPack&& sum_pack) {
  const std::size_t rp = row_packs(io.hidden, D);
  const std::size_t t0 = static_cast<std::size_t>(c.thread);
  const std::size_t nt = static_cast<std::size_t>(c.threads);
  // threads | kNormLanes: thread t owns exactly the lanes l with l % threads == t.
  for (int l = c.thread; l < kNormLanes; l += c.threads) lanes[l] = 0.0f;
  for (std::size_t k = t0; k < rp; k += nt) {  // round-trips: per unit (pack k of the row)
    const Pack r = add_residual<D>(sum_pack(k), load_row_pack<D>(io.residual, io.hidden, row, k));
    store_row_pack<D>(io.residual_out, io.hidden, row, k, r);
    if (io.mirror_r != nullptr) Mem::store_data(io.mirror_r + row * rp + k, r);
    float& lane = lanes[k % kNormLanes];
    lane = add_squares<D>(r, lane);
  }
  const float inv = rms_inv(sum_lanes<Mem>(lanes, c), io.hidden, io.eps);
  for (std::size_t k = t0; k < rp; k += nt) {
    const Pack r = load_row_pack<D>(io.residual_out, io.hidden, row, k);
    const Pack y = scale_pack<D>(r, load_row_pack<D>(io.weight, io.hidden, 0, k), inv);
    store_row_pack<D>(io.norm_out, io.hidden, row, k, y);
    if (io.mirror_y != nullptr) Mem::store_data(io.mirror_y + row * rp + k, y);
  }
}

}  // namespace arbench::algo
