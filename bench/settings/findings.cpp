// Best-of-A against best-of-B per size; see findings.hpp.
#include "settings/findings.hpp"

namespace arbench {
namespace {

const ResultCase* fastest(const std::map<std::string, const ResultCase*>& at, const std::vector<std::string>& names) {
  const ResultCase* best = nullptr;
  for (const std::string& n : names)
    if (const auto it = at.find(n); it != at.end() && (!best || it->second->median_us < best->median_us)) best = it->second;
  return best;
}

// crossover: A holds while B does not beat it; otherwise A holds while it beats B.
Advantage compare_groups(const Measured::Grid& grid, int world, const std::string& axis, std::string a_label,
                         const std::vector<std::string>& a, std::string b_label, const std::vector<std::string>& b,
                         bool crossover, const VerdictOptions& opt) {
  Advantage adv;
  adv.a = std::move(a_label);
  adv.b = std::move(b_label);
  adv.axis = axis;
  const auto w = grid.find(world);
  if (w == grid.end()) return adv;
  bool leading = true;
  for (const auto& [size, at] : w->second) {
    const ResultCase* ca = fastest(at, a);
    const ResultCase* cb = fastest(at, b);
    if (!ca || !cb) continue;
    Evidence e = weigh(*ca, *cb, axis, size, opt);
    adv.wins += e.beats;
    adv.losses += e.loses;
    const bool holds = crossover ? !e.loses : e.beats;
    if (leading && holds) adv.lead = size;
    leading = leading && holds;
    adv.evidence.push_back(std::move(e));
  }
  adv.measured = !adv.evidence.empty();
  adv.everywhere = adv.measured && leading;
  return adv;
}

}  // namespace

std::vector<Evidence> Advantage::boundary() const {
  std::vector<Evidence> out;
  for (std::size_t i = 0; i < evidence.size(); ++i) {
    const bool last_of_lead = evidence[i].size == lead;
    const bool first_past = (i > 0 && evidence[i - 1].size == lead) || (lead == 0 && i == 0);
    if (last_of_lead || first_past) out.push_back(evidence[i]);
  }
  return out;
}

Findings find_advantages(const Measured& m, int world, const VerdictOptions& opt) {
  Findings f;
  f.world = world;
  const std::vector<std::string> custom(std::begin(kCustomVariants), std::end(kCustomVariants));
  const std::string w = std::to_string(world);
  f.custom = compare_groups(m.allreduce, world, "bytes", "a custom P2P all-reduce (arbench's one-shot or two-shot)",
                            custom, "NCCL's own choice", {"nccl"}, false, opt);
  if (!f.custom.measured) {
    f.custom.missing = "arbench's custom kernels and `nccl` were not both measured at " + w + " GPUs";
    f.custom.run_line = allreduce_run_line(m, world, "nccl,oneshot-pull,oneshot-push,twoshot", "", "custom-" + w + ".json");
  }
  f.shots = compare_groups(m.allreduce, world, "bytes", "one-shot", {"oneshot-pull", "oneshot-push"}, "two-shot",
                           {"twoshot"}, true, opt);
  if (!f.shots.measured) {
    f.shots.missing = "one-shot and two-shot were not both measured at " + w + " GPUs";
    f.shots.run_line = allreduce_run_line(m, world, "oneshot-pull,oneshot-push,twoshot", "", "shots-" + w + ".json");
  }
  f.nccl_symm = compare_groups(m.allreduce, world, "bytes", "NCCL on symmetric memory", {"nccl-symm"},
                               "NCCL on plain buffers", {"nccl"}, false, opt);
  if (!f.nccl_symm.measured) {
    f.nccl_symm.missing = "`nccl-symm` and `nccl` were not both measured at " + w + " GPUs";
    f.nccl_symm.run_line = allreduce_run_line(m, world, "nccl,nccl-symm", "", "nccl-symm-" + w + ".json");
  }
  f.fusion = compare_groups(m.fused, world, "tokens", "the fused all-reduce + RMSNorm", {"fused-oneshot", "fused-twoshot"},
                            "the best unfused all-reduce then RMSNorm", {"unfused-nccl", "unfused-oneshot"}, false, opt);
  if (!f.fusion.measured) {
    f.fusion.missing = "the fused family (fused and unfused all-reduce + RMSNorm) was not measured at " + w + " GPUs" +
                       (m.hidden > 0 ? " at hidden " + std::to_string(m.hidden) : "");
    f.fusion.run_line = fused_run_line(m, world, "fused-" + w + ".json");
  }
  f.peer_pcie_ipc = compare_groups(m.allreduce, world, "bytes", "FlashInfer's PCIe-IPC all-reduce",
                                   {"flashinfer-pcie-ipc"}, "NCCL's own choice", {"nccl"}, false, opt);
  f.peer_vllm_custom = compare_groups(m.allreduce, world, "bytes", "vLLM's custom all-reduce", {"vllm-custom"},
                                      "NCCL's own choice", {"nccl"}, false, opt);
  f.peer_fusion = compare_groups(m.fused, world, "tokens", "FlashInfer's fused all-reduce + RMSNorm",
                                 {"flashinfer-fused"}, "the best unfused all-reduce then RMSNorm",
                                 {"unfused-nccl", "unfused-oneshot"}, false, opt);
  f.peer_fused_shots = compare_groups(m.fused, world, "tokens", "FlashInfer's fused one-shot",
                                      {"flashinfer-fused[oneshot]"}, "FlashInfer's fused two-shot",
                                      {"flashinfer-fused[twoshot]"}, true, opt);
  f.fused_shots = compare_groups(m.fused, world, "tokens", "fused one-shot", {"fused-oneshot"}, "fused two-shot",
                                 {"fused-twoshot"}, true, opt);
  if (!f.fused_shots.measured) {
    f.fused_shots.missing = "`fused-oneshot` and `fused-twoshot` were not both measured at " + w + " GPUs";
    f.fused_shots.run_line = fused_run_line(m, world, "fused-" + w + ".json");
  }
  return f;
}

}  // namespace arbench
