// Reduction of one pack across ranks: fp32 accumulation in the fixed rank order 0..world-1.
//
// Purpose: every rank (and the host twin) adds the same operands in the same order with the same
// rounding, so all ranks' results are bitwise identical and equal to the twin's — the property
// the harness checks. Never reorder the loop (e.g. "own rank first") to save a load.
#pragma once

#include "arbench/algo/pack.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

// Incremental form, for protocols that obtain the ranks' packs one at a time (oneshot-push):
// feed ranks 0..world-1 in order; the result is bitwise that of reduce_packs.
template <DType D>
struct PackAccumulator {
  using E = ElemOps<D>;
  float acc[E::kPerPack];
  ARB_HD void add(const Pack& p, bool first) {
    ARB_UNROLL
    for (int i = 0; i < E::kPerPack; ++i) acc[i] = first ? E::get(p, i) : acc[i] + E::get(p, i);
  }
  ARB_HD Pack result() const {
    Pack out{{0u, 0u, 0u, 0u}};
    ARB_UNROLL
    for (int i = 0; i < E::kPerPack; ++i) E::set(out, i, acc[i]);
    return out;
  }
};

// v[0..world-1]: pack k of ranks 0..world-1 (world <= N). Returns their sum, rounded once to D
// per element. The loops run to the compile-time N with a guard so the kernel keeps v and acc
// in registers.
template <DType D, int N>
ARB_HD Pack reduce_packs(const Pack (&v)[N], int world) {
  using E = ElemOps<D>;
  float acc[E::kPerPack];
  ARB_UNROLL
  for (int i = 0; i < E::kPerPack; ++i) acc[i] = E::get(v[0], i);
  ARB_UNROLL
  for (int r = 1; r < N; ++r) {
    if (r >= world) break;
    ARB_UNROLL
    for (int i = 0; i < E::kPerPack; ++i) acc[i] += E::get(v[r], i);
  }
  Pack out{{0u, 0u, 0u, 0u}};
  ARB_UNROLL
  for (int i = 0; i < E::kPerPack; ++i) E::set(out, i, acc[i]);
  return out;
}

}  // namespace arbench::algo
