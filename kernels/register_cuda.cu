// Registration of the GPU-fabric variants (CUDA kernels and NCCL). One line per variant.
#include "arbench/variant.hpp"
#include "kernels/ce/ce_kernels.hpp"
#include "kernels/fp8/fp8_kernels.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/island/island_kernels.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/peers/peer_entries.hpp"
#include "kernels/ring/ring_gpu.hpp"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {

void register_gpu_variants(Registry& r) {
  r.add(nccl_entry());
  r.add(nccl_symm_entry());
  r.add(symm_gpu_entry(SymmAlgo::oneshot_pull));
  r.add(symm_gpu_entry(SymmAlgo::oneshot_push));
  r.add(symm_gpu_entry(SymmAlgo::twoshot));
  r.add(fp8_gpu_entry(Fp8Algo::oneshot));
  r.add(fp8_gpu_entry(Fp8Algo::twoshot));
  r.add(ring_gpu_entry());
  r.add(ce_gpu_entry(CeAlgo::twoshot));
  r.add(ce_gpu_entry(CeAlgo::ring));
  r.add(ce_gpu_entry(CeAlgo::island));
  r.add(island_gpu_entry(IslandAlgo::oneshot));
  r.add(island_gpu_entry(IslandAlgo::twoshot));
  r.add(fused_gpu_entry(FusedAlgo::unfused_nccl));
  r.add(fused_gpu_entry(FusedAlgo::unfused_oneshot));
  r.add(fused_gpu_entry(FusedAlgo::fused_oneshot));
  r.add(fused_gpu_entry(FusedAlgo::fused_twoshot));
  r.add(island_gpu_entry(IslandAlgo::fused_oneshot));
  r.add(island_gpu_entry(IslandAlgo::fused_twoshot));
  r.add(peer_entry(PeerKind::pcie_ipc));  // peers: other projects' kernels (kernels/peers/)
  r.add(peer_entry(PeerKind::vllm_custom));
  r.add(peer_entry(PeerKind::fusion));
}

}  // namespace arbench
