// The documented rounding of arbench's reductions (docs/method.md, "Rounding"), written out
// independently of include/arbench/algo (plain float arithmetic and its own round-to-nearest-even
// into each dtype), to check the host twins and the CUDA kernels bit for bit on inputs that are
// NOT exact. (The oracle's small integers are exact in any order and would hide a reordered sum.)
//   rank order (oneshot-pull/-push, twoshot, reference, the fused family's step 1):
//     s = round_D(((x_0 + x_1) + x_2) + ... + x_{N-1}), every + an fp32 round-to-nearest
//   ring: segment j of each round starts at ring position j and travels j, j+1, ..., j+N-1
//     (mod N); every hop is round_D(float(partial) + float(own)) (the wire carries the dtype)
//   island variants and ce-island: each island's partial in rank order over its ranks, rounded
//     to D (what crosses); then the partials in island order (islands by their lowest rank),
//     rounded once
//   fused residual + RMSNorm: include/arbench/algo/rmsnorm.hpp's five steps, with the sum of
//     squares in 512 lanes (pack k to lane k mod 512) combined by a pairwise tree
// Only the ring's geometry (which packs form segment j) comes from algo/ring/ring_schedule.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/ring/ring_order.hpp"
#include "arbench/algo/ring/ring_schedule.hpp"
#include "arbench/core/dtype.hpp"

namespace arbench::testing {

// v rounded to nearest, ties to even, into t (normal and subnormal range; overflow gives inf).
inline float round_to_dtype(DType t, float v) {
  if (t == DType::fp32 || v == 0.0f || !std::isfinite(v)) return v;
  const int bits = t == DType::bf16 ? 8 : 11;          // significand bits, hidden bit included
  const int min_exp = t == DType::bf16 ? -126 : -14;  // exponent of the smallest normal
  int e = 0;
  std::frexp(double(v), &e);  // v = m * 2^e, 0.5 <= |m| < 1
  const int q = std::max(e - bits, min_exp + 1 - bits);  // exponent of one unit in the last place
  const double r = std::ldexp(std::nearbyint(std::ldexp(double(v), -q)), q);  // nearbyint: ties to even
  const double max = t == DType::bf16 ? double(std::numeric_limits<float>::max()) : 65504.0;
  if (std::fabs(r) > max) return std::copysign(std::numeric_limits<float>::infinity(), v);
  return float(r);
}

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Inputs (one vector per rank, values representable in t) whose fp32 sum depends on the order.
// Half the elements cancel: rank 0 holds a large A, rank 1 holds -A, the other ranks small values
// with bits below A's fp32 spacing. In rank order A - A = 0 exactly and the small values add up
// almost exactly; in any order that meets A before all small values are in (reversed, "own rank
// first"), they are rounded to A's spacing, which is far coarser than t's spacing at the small
// result, so the output differs. The other half are random values over many binades. (With two
// ranks every order gives the same sum: addition commutes.) Deterministic in `seed`.
inline std::vector<std::vector<float>> order_sensitive_inputs(DType t, int world, std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  const bool fp16 = t == DType::fp16;  // keep sums of 8 values far below 65504
  std::uniform_int_distribution<int> wide(fp16 ? -6 : -12, fp16 ? 10 : 12), small(fp16 ? -6 : -8, fp16 ? -2 : -4);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> coin(0, 1);
  auto value = [&](int exponent) {
    return round_to_dtype(t, (coin(gen) != 0 ? -1.0f : 1.0f) * std::ldexp(mant(gen), exponent));
  };
  std::vector<std::vector<float>> x(static_cast<std::size_t>(world), std::vector<float>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const bool cancel = world >= 3 && coin(gen) != 0;
    for (int r = 0; r < world; ++r) x[std::size_t(r)][i] = value(cancel ? small(gen) : wide(gen));
    if (cancel) {
      x[0][i] = value(fp16 ? 10 : 12);
      x[1][i] = -x[0][i];
    }
  }
  return x;
}

// Inputs as the fused family sees them (non-integer, normal(0, 2) for x and residual, 1 + small
// for the weight), representable in t.
inline std::vector<float> normal_inputs(DType t, std::size_t n, float offset, float sigma, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, sigma);
  std::vector<float> v(n);
  for (auto& e : v) e = round_to_dtype(t, offset + dist(gen));
  return v;
}

// Element i of the all-reduce summed in `order` (positions 0..N-1 hold ranks) in fp32, rounded
// once to t.
inline float ordered_fp32_sum(DType t, const std::vector<std::vector<float>>& x, const std::vector<int>& order,
                              std::size_t i) {
  float acc = x[std::size_t(order[0])][i];
  for (std::size_t k = 1; k < order.size(); ++k) acc = acc + x[std::size_t(order[k])][i];
  return round_to_dtype(t, acc);
}

inline std::vector<int> rank_order(int world, bool reversed = false) {
  std::vector<int> o(static_cast<std::size_t>(world));
  for (int r = 0; r < world; ++r) o[std::size_t(r)] = reversed ? world - 1 - r : r;
  return o;
}

// The all-reduce in rank order 0..N-1 (reversed: N-1..0, the planted bug).
inline std::vector<float> rank_order_model(DType t, const std::vector<std::vector<float>>& x, bool reversed = false) {
  const auto order = rank_order(int(x.size()), reversed);
  std::vector<float> out(x[0].size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = ordered_fp32_sum(t, x, order, i);
  return out;
}

// The ring's model for geometry g (channels, chunk) and ring order `order`.
inline std::vector<float> ring_model(DType t, const std::vector<std::vector<float>>& x, const algo::RingGeometry& g,
                                     const std::vector<int>& order) {
  const int world = g.world;
  const std::size_t n = x[0].size(), per = 16 / dtype_size(t);
  std::vector<float> out(n);
  for (int ch = 0; ch < g.channels; ++ch)
    for (std::size_t round = 0; round < algo::ring_rounds(g, ch); ++round)
      for (int j = 0; j < world; ++j) {
        const algo::Range seg = algo::ring_segment(g, ch, round, j);
        for (std::size_t i = seg.begin * per; i < std::min(seg.end * per, n); ++i) {
          float acc = x[std::size_t(order[std::size_t(j)])][i];
          for (int h = 1; h < world; ++h)
            acc = round_to_dtype(t, acc + x[std::size_t(order[std::size_t((j + h) % world)])][i]);
          out[i] = round_to_dtype(t, acc);
        }
      }
  return out;
}

// Two islands for the tests that run island variants: ranks 0..N/2-1 and N/2..N-1.
inline std::vector<int> island_halves(int world) {
  std::vector<int> labels;
  for (int r = 0; r < world; ++r) labels.push_back(r < world / 2 ? 0 : 1);
  return labels;
}

// The islands of `text` as the island variants record them ("0-1,2-4", "0+2,1+3"): per island,
// its ranks ascending, islands in the order written (the variants write them by lowest rank).
// Parsed here independently of bench/islands.
inline std::vector<std::vector<int>> islands_of_text(const std::string& text) {
  std::vector<std::vector<int>> out(1);
  std::string run;
  auto flush = [&] {
    const auto dash = run.find('-');
    const int lo = std::stoi(run.substr(0, dash)), hi = dash == std::string::npos ? lo : std::stoi(run.substr(dash + 1));
    for (int r = lo; r <= hi; ++r) out.back().push_back(r);
    run.clear();
  };
  for (char ch : text) {
    if (ch == ',' || ch == '+') {
      flush();
      if (ch == ',') out.emplace_back();
    } else {
      run += ch;
    }
  }
  flush();
  for (auto& island : out) std::sort(island.begin(), island.end());
  return out;
}

// The variants whose sums follow the islands: island-* and ce-island.
inline bool is_island_model(const std::string& variant) {
  return variant.rfind("island-", 0) == 0 || variant == "ce-island";
}

// Element i of the island variants' all-reduce (see the top of this file).
inline float island_sum(DType t, const std::vector<std::vector<float>>& x, const std::vector<std::vector<int>>& islands,
                        std::size_t i) {
  float sum = 0;
  for (std::size_t g = 0; g < islands.size(); ++g) {
    float acc = x[std::size_t(islands[g][0])][i];
    for (std::size_t k = 1; k < islands[g].size(); ++k) acc = acc + x[std::size_t(islands[g][k])][i];
    const float partial = round_to_dtype(t, acc);
    sum = g == 0 ? partial : sum + partial;
  }
  return round_to_dtype(t, sum);
}

// The expected output of all-reduce `variant`, whose recorded settings give the ring's geometry
// (and the island variants' islands).
inline std::vector<float> allreduce_model(const std::string& variant,
                                          const std::vector<std::pair<std::string, std::string>>& settings, DType t,
                                          const std::vector<std::vector<float>>& x) {
  if (is_island_model(variant)) {
    std::string text;
    for (const auto& [k, v] : settings)
      if (k == "islands") text = v;
    const auto islands = islands_of_text(text);
    std::vector<float> out(x[0].size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = island_sum(t, x, islands, i);
    return out;
  }
  if (variant == "ce-ring") {  // one segment per ring position over the whole message, ring order
    const int world = int(x.size());
    const std::size_t per = 16 / dtype_size(t), n = x[0].size(), packs = (n + per - 1) / per;
    std::vector<int> order = rank_order(world);
    for (const auto& [k, v] : settings)
      if (k == "ring_order") order = algo::parse_ring_order_text(v).value_or(order);
    std::vector<float> out(n);
    for (int j = 0; j < world; ++j) {
      const algo::Range seg = algo::owned_range(packs, world, j);
      for (std::size_t i = seg.begin * per; i < std::min(seg.end * per, n); ++i) {
        float acc = x[std::size_t(order[std::size_t(j)])][i];
        for (int h = 1; h < world; ++h) acc = round_to_dtype(t, acc + x[std::size_t(order[std::size_t((j + h) % world)])][i]);
        out[i] = round_to_dtype(t, acc);
      }
    }
    return out;
  }
  if (variant != "ring") return rank_order_model(t, x);
  algo::RingGeometry g;
  g.world = int(x.size());
  g.packs = (x[0].size() + 16 / dtype_size(t) - 1) / (16 / dtype_size(t));
  std::vector<int> order = rank_order(g.world);
  for (const auto& [k, v] : settings) {
    if (k == "ring_channels") g.channels = std::stoi(v);
    if (k == "ring_chunk") g.chunk_packs = std::stoul(v) / 16;
    if (k == "ring_order") order = algo::parse_ring_order_text(v).value_or(order);
  }
  return ring_model(t, x, g, order);
}

// Against fp64: the exact sum of the inputs (<= 8 values spanning < 53 bits, so exact in double)
// and the error the model allows: every fp32 addition (unit roundoff u32 = 2^-24) and, for the
// ring, every hop's rounding to t (u_t), at most (N-1) (u32 [+ u_t]) sum|x|, plus the final
// rounding, half an ULP of t. Returns how many elements of `s` fall outside.
inline std::size_t outside_fp64_bound(DType t, const std::vector<std::vector<float>>& x, const std::vector<float>& s,
                                      bool rounds_every_hop) {
  const double u32 = std::ldexp(1.0, -24);
  const double ut = t == DType::bf16 ? std::ldexp(1.0, -8) : t == DType::fp16 ? std::ldexp(1.0, -11) : u32;
  const double per_hop = u32 + (rounds_every_hop ? ut : 0.0);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    double exact = 0, mag = 0;
    for (const auto& xr : x) {
      exact += xr[i];
      mag += std::fabs(xr[i]);
    }
    const double bound = double(x.size() - 1) * per_hop * mag + 0.5 * ulp_of(t, s[i]);
    if (!(std::fabs(double(s[i]) - exact) <= bound)) ++bad;
  }
  return bad;
}

struct RmsnormModel {
  std::vector<float> r, y;  // residual_out, norm_out
};

// The fused family's five steps (rmsnorm.hpp) on [tokens][hidden] rows; `reversed` plants a
// reversed rank order in step 1.
inline RmsnormModel rmsnorm_model(DType t, const std::vector<std::vector<float>>& x, const std::vector<float>& residual,
                                  const std::vector<float>& weight, int tokens, int hidden, float eps,
                                  bool reversed = false, const std::vector<std::vector<int>>& islands = {}) {
  constexpr int kLanes = 512;
  const std::size_t h = std::size_t(hidden), per = 16 / dtype_size(t);
  const auto order = rank_order(int(x.size()), reversed);
  RmsnormModel m;
  m.r.resize(std::size_t(tokens) * h);
  m.y.resize(m.r.size());
  for (std::size_t row = 0; row < std::size_t(tokens); ++row) {
    std::vector<float> lanes(kLanes, 0.0f);
    for (std::size_t j = 0; j < h; ++j) {
      const std::size_t i = row * h + j;
      const float s = islands.empty() ? ordered_fp32_sum(t, x, order, i) : island_sum(t, x, islands, i);
      m.r[i] = round_to_dtype(t, s + residual[i]);
      float& lane = lanes[(j / per) % kLanes];
      lane = lane + m.r[i] * m.r[i];
    }
    for (int stride = kLanes / 2; stride > 0; stride /= 2)
      for (int l = 0; l < stride; ++l) lanes[std::size_t(l)] = lanes[std::size_t(l)] + lanes[std::size_t(l + stride)];
    const float inv = 1.0f / std::sqrt(lanes[0] / float(hidden) + eps);
    for (std::size_t j = 0; j < h; ++j) {
      const std::size_t i = row * h + j;
      m.y[i] = round_to_dtype(t, (m.r[i] * inv) * weight[j]);
    }
  }
  return m;
}

// Elements of `got` (n elements of t) whose bits differ from `want`; the first is described.
inline std::size_t count_model_mismatches(DType t, const void* got, const std::vector<float>& want,
                                          std::string* first = nullptr) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const float g = load_as_f32(got, i, t);
    if (same_bits(g, want[i])) continue;
    if (bad++ == 0 && first != nullptr)
      *first = "element " + std::to_string(i) + ": got " + std::to_string(g) + ", the model says " + std::to_string(want[i]);
  }
  return bad;
}

// Host bytes of t holding `v` (values already representable in t).
inline std::vector<std::uint8_t> to_bytes(DType t, const std::vector<float>& v) {
  std::vector<std::uint8_t> b(v.size() * dtype_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) store_from_f32(b.data(), i, t, v[i]);
  return b;
}

}  // namespace arbench::testing
