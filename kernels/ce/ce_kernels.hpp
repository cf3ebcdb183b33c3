// CUDA side of the copy-engine variants (kernels/ce/ce_gpu.cu): the GPU variant on the cuda and
// single_gpu fabrics (one or several processes), built on CeVariant.
#pragma once

#include <memory>

#include "arbench/variant.hpp"
#include "kernels/ce/ce_variant.hpp"

namespace arbench {

// Enqueue the reduce of one chunk on `stream` (a cudaStream_t): CePolicy::reduce_blocks CTAs.
void launch_ce_reduce(const algo::CeReduceArgs& a, DType t, Stream stream);

std::unique_ptr<CeVariant> make_ce_gpu(CeAlgo algo, CeOptions opt = {});

// Registry entry with the GPU factory and the configurations (register_host.cpp adds the twin).
VariantEntry ce_gpu_entry(CeAlgo algo);

}  // namespace arbench
