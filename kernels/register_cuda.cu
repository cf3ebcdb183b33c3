// Registration of the GPU-fabric variants (CUDA kernels and NCCL). One line per variant.
#include "arbench/variant.hpp"
#include "kernels/nccl_allreduce.hpp"

namespace arbench {

void register_gpu_variants(Registry& r) {
  r.add(nccl_entry());
}

}  // namespace arbench
