// The peers' registry entries (register_cuda.cu adds them): each peer's name, family, line and
// configurations always, its factories only when this arbench was built with it (the adapters'
// translation units exist only then: ARBENCH_PEER_* from cmake/ArbenchPeers.cmake). A peer not
// built is listed as unavailable with the reason the configure step gave.
#include "arbench/core/peers.hpp"
#include "kernels/peers/peer_entries.hpp"
#include "kernels/peers/peer_policy.hpp"
#include "kernels/peers/peer_traffic.hpp"
#include "kernels/peers/peer_variant.hpp"

namespace arbench {
namespace {

using Factory = std::unique_ptr<Variant> (*)(const std::string& config);

Factory factory_of(PeerKind k) {
  switch (k) {
#if ARBENCH_PEER_PCIE_IPC
    case PeerKind::pcie_ipc: return make_flashinfer_pcie_ipc;
#endif
#if ARBENCH_PEER_FUSION
    case PeerKind::fusion: return make_flashinfer_fusion;
#endif
#if ARBENCH_PEER_VLLM
    case PeerKind::vllm_custom: return make_vllm_custom;
#endif
    default: return nullptr;
  }
}

// The peers' traffic as this build prices it: with the waits counted in their PTX where the peers
// were built (counted_peer_waits), else the written ones.
Traffic pcie_ipc_priced(const TrafficQuery& q) { return flashinfer_pcie_ipc_traffic_counted(q, counted_peer_waits()); }
Traffic fused_priced(const TrafficQuery& q) { return flashinfer_fused_traffic_counted(q, counted_peer_waits()); }
Traffic vllm_priced(const TrafficQuery& q) { return vllm_custom_traffic_counted(q, counted_peer_waits()); }

}  // namespace

VariantEntry peer_entry(PeerKind k) {
  const PeerText& t = peer_text(k);
  VariantEntry e;
  e.name = t.name;
  e.family = t.family;
  e.summary = t.summary;
  if (k == PeerKind::vllm_custom && !peer_build().vllm_from.empty()) e.summary += "; from " + peer_build().vllm_from;
  e.peer = t.project;
  e.traffic = k == PeerKind::pcie_ipc ? &pcie_ipc_priced : k == PeerKind::fusion ? &fused_priced : &vllm_priced;
  e.configs = peer_configs(k);
  e.config_summary = [k](const std::string& config) { return peer_config_summary(k, config); };
  e.no_host_reason = std::string("a peer: ") + t.project + "'s kernel runs on GPUs only (no host twin)";
  if (const Factory make = factory_of(k); make != nullptr && peer_build().built(t.name)) {
    e.gpu = [make] { return make(""); };
    e.make_configured = [make](const std::string& config) { return make(config); };
  } else {
    const std::string why = peer_build().why_not(t.name);
    e.no_gpu_reason = why.empty() ? "not built into this arbench (docs/variants.md, \"Peers\")" : why;
  }
  return e;
}

}  // namespace arbench
