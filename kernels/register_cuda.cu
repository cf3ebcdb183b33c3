// Registration of the GPU-fabric variants: NCCL, the kernels of the variants that also have a
// host twin (twinned_variants.hpp), and the peers. And the built-in registry, host twins plus
// these: it lives with the GPU half because only the CUDA library has both.
#include "arbench/variant.hpp"
#include "kernels/ce/ce_kernels.hpp"
#include "kernels/fp8/fp8_kernels.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/island/island_kernels.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/peers/peer_entries.hpp"
#include "kernels/ring/ring_gpu.hpp"
#include "kernels/symm/symm_kernels.hpp"
#include "kernels/twinned_variants.hpp"

namespace arbench {

void register_gpu_variants(Registry& r) {
  r.add(nccl_entry());
  r.add(nccl_symm_entry());
  add_twinned_variants(r, {&symm_gpu_entry, &fp8_gpu_entry, &ring_gpu_entry, &ce_gpu_entry, &island_gpu_entry,
                           &fused_gpu_entry});
  r.add(peer_entry(PeerKind::pcie_ipc));  // peers: other projects' kernels (kernels/peers/)
  r.add(peer_entry(PeerKind::vllm_custom));
  r.add(peer_entry(PeerKind::fusion));
}

const Registry& Registry::builtin() {
  static const Registry reg = [] {
    Registry r;
    register_host_variants(r);
    register_gpu_variants(r);
    return r;
  }();
  return reg;
}

}  // namespace arbench
