// Registration of the GPU-fabric variants (CUDA kernels and NCCL). One line per variant.
#include "arbench/variant.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/island/island_kernels.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/ring/ring_gpu.hpp"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {

void register_gpu_variants(Registry& r) {
  r.add(nccl_entry());
  r.add(nccl_symm_entry());
  r.add(oneshot_pull_gpu_entry());
  r.add(oneshot_push_gpu_entry());
  r.add(twoshot_gpu_entry());
  r.add(ring_gpu_entry());
  r.add(island_oneshot_gpu_entry());
  r.add(island_twoshot_gpu_entry());
  r.add(unfused_nccl_gpu_entry());
  r.add(unfused_oneshot_gpu_entry());
  r.add(fused_oneshot_gpu_entry());
  r.add(fused_twoshot_gpu_entry());
  r.add(fused_island_oneshot_gpu_entry());
  r.add(fused_island_twoshot_gpu_entry());
}

}  // namespace arbench
