// The peers' dispatch rule (arbench/core/peer_dispatch.hpp), from the engines' own gates. Each
// refusal names the code it was read in:
//  - vLLM's custom all-reduce: CustomAllreduce.__init__ returns disabled when world_size > 2 and the
//    GPUs are not fully connected, and only world sizes 2, 4, 6, 8 are supported
//    (vllm/distributed/device_communicators/custom_all_reduce.py, read at vLLM commit 00d618aab604;
//    the same gate in the docs of v0.9.2). FlashInfer's copy of the kernel refuses alike: every
//    REDUCE_CASE arm but world size 2 sits inside `if (full_nvlink_)`
//    (include/flashinfer/comm/vllm_custom_all_reduce.cuh, PR #4393, read at fb28d7242b35).
//  - forced PCIe-IPC schedules and forced vLLM stages: no engine passes one (vLLM and SGLang call
//    FlashInfer's all_reduce without a config, so its seed or tuner picks; vLLM's stage is its size
//    rule in csrc/custom_all_reduce.cuh).
//  - the fusion's configurations all run: FlashInfer's allreduce_fusion takes use_oneshot from its
//    caller (vLLM passes its own rule; None gives FlashInfer's).
#include "arbench/core/peer_dispatch.hpp"

namespace arbench {
namespace {

bool supported_by_vllm(int world) { return world == 2 || world == 4 || world == 6 || world == 8; }

void split(const std::string& variant, std::string* base, std::string* config) {
  const auto open = variant.find('[');
  *base = variant.substr(0, open);
  *config = open == std::string::npos || variant.back() != ']' ? "" : variant.substr(open + 1, variant.size() - open - 2);
}

}  // namespace

std::string peer_engine_label(const std::string& variant) {
  std::string base, config;
  split(variant, &base, &config);
  if (base == "flashinfer-pcie-ipc")
    return config.empty() ? "as vLLM runs it (VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC: FlashInfer's own schedule choice)"
                          : "FlashInfer's " + config + " schedule forced: no engine forces it, vLLM's run of FlashInfer's "
                            "tuner may pick it";
  if (base == "flashinfer-fused") {
    if (config.empty() || config == "vllm")
      return "as vLLM's fusion pass runs it (its use_oneshot rule, PDL on); SGLang does not run it on 12.x";
    if (config == "flashinfer") return "FlashInfer's own rule and defaults (use_oneshot=None, no PDL)";
    return "FlashInfer's " + config + " kernel forced, launched as vLLM launches it";
  }
  if (base == "vllm-custom")
    return config.empty() ? "as vLLM runs it (its size rule; on 2 GPUs, or more all NVLink-connected)"
                          : "vLLM's " + config + " kernel forced at every size: no engine runs it";
  return {};
}

std::string peer_not_dispatchable(const std::string& variant, DispatchPlace at) {
  std::string base, config;
  split(variant, &base, &config);
  if (base == "flashinfer-pcie-ipc") {
    if (!config.empty())
      return "no engine forces a PCIe-IPC schedule: vLLM and SGLang run FlashInfer's own choice (its seed, or "
             "what its tuner measured)";
    return {};
  }
  if (base == "vllm-custom") {
    if (!config.empty()) return "vLLM picks its one-stage or two-stage kernel by size itself; no switch forces one";
    if (!supported_by_vllm(at.world))
      return "vLLM runs its custom all-reduce on 2, 4, 6 or 8 GPUs only, not " + std::to_string(at.world);
    if (at.world > 2 && !at.all_nvlink)
      return "vLLM turns its custom all-reduce off on more than two GPUs that are not all NVLink-connected";
    return {};
  }
  return {};
}

std::string peer_as_engine_runs_it(const std::string& variant, DispatchPlace at) {
  std::string base, config;
  split(variant, &base, &config);
  if (base == "flashinfer-pcie-ipc") return base;  // the seed, or a schedule its tuner may pick
  if (base == "flashinfer-fused") return config.empty() || config == "vllm" ? base : "";
  if (base == "vllm-custom") return peer_not_dispatchable(variant, at).empty() ? base : "";
  return {};
}

}  // namespace arbench
