// The copy-engine variants' reduce kernel.
// Purpose: add the chunks the copy engines brought into this rank's staging to its own input,
// in the order the program gives (include/arbench/algo/ce/ce_reduce.hpp), into its output. All
// operands are in the rank's own memory: no remote load, no flag (the stream waits before it on
// its stream are the protocol's, counted as waits in docs/round-trips.md).
// Requirements: 16-byte aligned operands (chunks start at pack boundaries).
#include <cuda_runtime.h>

#include "arbench/algo/ce/ce_policy.hpp"
#include "arbench/algo/ce/ce_reduce.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/ce/ce_kernels.hpp"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::CePolicy::kReduceThreads) ce_reduce(const algo::CeReduceArgs a, std::size_t packs) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < packs; k += stride)
    algo::ce_reduce_pack<D>(a, k);
}

}  // namespace

void launch_ce_reduce(const algo::CeReduceArgs& a, DType t, Stream stream) {
  const std::size_t packs = algo::pack_count(a.elems, t);
  const int blocks = algo::CePolicy::reduce_blocks(packs);
  with_dtype(t, [&](auto d) {
    ce_reduce<decltype(d)::value><<<blocks, algo::CePolicy::kReduceThreads, 0, static_cast<cudaStream_t>(stream)>>>(a, packs);
  });
  ARB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace arbench
