// The variants whose traffic the host registry lacks (they run on GPU fabrics only): NCCL with its
// configurations, nccl-symm and the peers with every configuration of each, added to `r` for the
// floor's tests without the GPU half of the registry.
#pragma once

#include "arbench/variant.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/peers/peer_text.hpp"
#include "kernels/peers/peer_traffic.hpp"
#include "sol_fixture.hpp"

namespace sol_fixture {

inline void add_gpu_only_variants(arbench::Registry& r) {
  using namespace arbench;
  VariantEntry nccl;
  nccl.name = "nccl";
  nccl.traffic = &nccl_traffic;
  nccl.configs = {"ring/ll", "ring/ll128", "ring/simple", "tree/ll", "tree/simple", "ring/ll/ch:4", "tuned"};
  r.add(nccl);
  r.add(traffic_entry("nccl-symm", &nccl_symm_traffic));
  for (PeerKind k : {PeerKind::pcie_ipc, PeerKind::fusion, PeerKind::vllm_custom}) {
    VariantEntry e;
    e.name = peer_text(k).name;
    e.family = peer_text(k).family;
    e.traffic = k == PeerKind::pcie_ipc ? &flashinfer_pcie_ipc_traffic
                : k == PeerKind::fusion ? &flashinfer_fused_traffic
                                        : &vllm_custom_traffic;
    e.configs = peer_configs(k);
    r.add(e);
  }
}

}  // namespace sol_fixture
