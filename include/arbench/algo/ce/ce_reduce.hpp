// The copy-engine variants' reduce: one chunk, dst := src[0] + ... + src[nsrc-1] element-wise,
// fp32 accumulation in that order, rounded once (ce-twoshot passes rank order 0..N-1, so every
// rank's result is bitwise the same; ce-ring the partial, then the own input). The operands are
// all in the rank's own memory (the copy engines brought them), so the kernel makes no remote
// load. Shared by the kernel (kernels/ce/ce_gpu.cu) and the host twin (kernels/ce/ce_twin.cpp).
#pragma once

#include <cstddef>

#include "arbench/algo/ce/ce_program.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/reduce.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

struct CeReduceArgs {
  void* dst = nullptr;
  const void* src[kCeMaxSources] = {};
  int nsrc = 0;
  std::size_t elems = 0;  // elements of the chunk (the last pack may be partial)
};

// Pack k of the chunk. Every operand is 16-byte aligned (chunks start at pack boundaries).
template <DType D>
ARB_HD void ce_reduce_pack(const CeReduceArgs& a, std::size_t k) {
  PackAccumulator<D> acc;
  acc.add(load_pack<D>(a.src[0], k, a.elems), true);  // every reduce has one source at least
  ARB_UNROLL
  for (int s = 1; s < kCeMaxSources; ++s) {
    if (s >= a.nsrc) break;
    acc.add(load_pack<D>(a.src[s], k, a.elems), false);
  }
  store_pack<D>(a.dst, k, a.elems, acc.result());
}

}  // namespace arbench::algo
