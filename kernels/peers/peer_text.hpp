// The peers' names, families, lines in `arbench list` and configurations (docs/variants.md,
// "Peers"), written once: the registration (peer_entries.cu), the adapters and the host tests read
// them here. Host code; knows nothing of the peers' headers.
#pragma once

#include <string>
#include <vector>

#include "arbench/core/case.hpp"

namespace arbench {

enum class PeerKind { pcie_ipc, fusion, vllm_custom };

struct PeerText {
  const char* name;
  Family family;
  const char* project;  // whose code it is
  const char* summary;  // `arbench list`; vllm-custom's adds where its header came from
};

inline constexpr PeerText kPeerText[] = {
    {"flashinfer-pcie-ipc", Family::allreduce, "FlashInfer",
     "peer: FlashInfer's PCIe-IPC all-reduce (pcie_ipc_all_reduce.cuh), its schedule as FlashInfer picks one "
     "untuned (its seed); on arbench's peer memory"},
    {"flashinfer-fused", Family::allreduce_rmsnorm, "FlashInfer",
     "peer: FlashInfer's fused all-reduce + residual add + RMSNorm (trtllm_allreduce_fusion.cuh), as vLLM runs it: "
     "one-shot or two-shot by vLLM's rule (one-shot at every size on 12.x), PDL on"},
    {"vllm-custom", Family::allreduce, "vLLM",
     "peer: vLLM's custom all-reduce, one-stage or two-stage as vLLM picks by size (told the GPUs are fully "
     "connected, else it runs nothing on 4 or more)"},
};

inline const PeerText& peer_text(PeerKind k) { return kPeerText[static_cast<int>(k)]; }

// FlashInfer's PCIe-IPC schedules (its Variant enum: kUnstaged, kStaged, kStagedRing, kFlatStaged),
// as configurations: flashinfer-pcie-ipc[staged-ring].
enum class PcieIpcSchedule { unstaged = 0, staged = 1, staged_ring = 2, flat_staged = 3 };
inline constexpr const char* kPcieIpcScheduleNames[] = {"unstaged", "staged", "staged-ring", "flat-staged"};

// The fusion's two kernels (use_oneshot): flashinfer-fused[oneshot], flashinfer-fused[twoshot].
enum class FusionShot { oneshot, twoshot };
// vLLM's two kernels: vllm-custom[1stage], vllm-custom[2stage].
enum class VllmStage { one, two };

// Each peer's configurations, and the line `arbench list` gives one.
std::vector<std::string> peer_configs(PeerKind k);
std::string peer_config_summary(PeerKind k, const std::string& config);

}  // namespace arbench
