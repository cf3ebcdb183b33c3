// Best-of-A against best-of-B per size; see findings.hpp.
#include "settings/findings.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "arbench/core/nccl_library_name.hpp"

namespace arbench {
namespace {

// The group's fastest case; on a box where pull beats push (`arbench doctor`, recorded by `run
// --doctor`), the pull twin of a push winner when the push one does not beat it.
const ResultCase* fastest(const std::map<std::string, const ResultCase*>& at, const std::vector<std::string>& names,
                          bool prefer_pull, const std::string& axis, std::uint64_t size, const VerdictOptions& opt) {
  const ResultCase* best = nullptr;
  for (const std::string& n : names)
    if (const auto it = at.find(n); it != at.end() && (!best || it->second->median_us < best->median_us)) best = it->second;
  if (prefer_pull && best)
    if (const std::size_t push = best->variant.find("push"); push != std::string::npos)
      if (const auto twin = at.find(std::string(best->variant).replace(push, 4, "pull"));
          twin != at.end() && std::find(names.begin(), names.end(), twin->first) != names.end() &&
          !weigh(*twin->second, *best, axis, size, opt).loses)
        return twin->second;
  return best;
}

// crossover: A holds while B does not beat it; otherwise A holds while it beats B.
Advantage compare_groups(const Measured::Grid& grid, int world, const std::string& axis, std::string a_label,
                         const std::vector<std::string>& a, std::string b_label, const std::vector<std::string>& b,
                         bool crossover, const VerdictOptions& opt, bool prefer_pull = false) {
  Advantage adv;
  adv.a = std::move(a_label);
  adv.b = std::move(b_label);
  adv.axis = axis;
  const auto w = grid.find(world);
  if (w == grid.end()) return adv;
  bool leading = true;
  for (const auto& [size, at] : w->second) {
    const ResultCase* ca = fastest(at, a, prefer_pull, axis, size, opt);
    const ResultCase* cb = fastest(at, b, prefer_pull, axis, size, opt);
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

// -1, 0, 1 as version a is older, the same or newer than b; 0 when either does not parse.
int version_order(const std::string& a, const std::string& b) {
  int x[3] = {}, y[3] = {};
  if (std::sscanf(a.c_str(), "%d.%d.%d", &x[0], &x[1], &x[2]) != 3 ||
      std::sscanf(b.c_str(), "%d.%d.%d", &y[0], &y[1], &y[2]) != 3)
    return 0;
  const auto ta = std::tie(x[0], x[1], x[2]), tb = std::tie(y[0], y[1], y[2]);
  return ta < tb ? -1 : tb < ta ? 1 : 0;
}

// "nccl@2.29.2 (NCCL 2.29.2)"; the variant alone when the version is not recorded.
std::string nccl_text(const std::string& version, const std::string& variant) {
  return variant + (version.empty() ? std::string() : " (NCCL " + version + ")");
}

void judge(NcclBuildFinding& f, const std::string& result) {
  const Advantage& a = f.plain;
  const std::string them = nccl_text(f.version, f.variant), ours = nccl_text(f.default_version, "nccl");
  // What the engine would move to: the release when it is another, else the build by its name.
  const std::string target = f.version.empty() || f.version == f.default_version ? f.variant : "NCCL " + f.version;
  const int order = version_order(f.version, f.default_version);
  const std::string move = (order > 0 ? "upgrading to " : order < 0 ? "going back to " : "switching to ") + target;
  const std::string sizes = std::to_string(a.evidence.size()) + (a.evidence.size() == 1 ? " size" : " sizes");
  const std::string measured = them + " against " + ours + ", each NCCL's own choice: faster at " +
                               std::to_string(a.wins) + " and slower at " + std::to_string(a.losses) + " of " + sizes;
  f.verify = "arbench compare " + result + " --between nccl," + f.variant;
  if (a.wins > 0 && a.losses == 0) {
    f.verdict = "switch";
    f.summary = measured + "; " + move + " is worth it on this machine";
  } else if (a.wins == 0) {
    f.verdict = "keep";
    f.summary = measured + "; " + move + " gains nothing measurable here: keep the NCCL you have";
  } else {
    f.verdict = "mixed";
    f.summary = measured +
                (a.lead > 0 ? " (faster from the smallest size up to " + size_text(a.lead, a.axis) + ")" : "") +
                "; whether " + move + " pays depends on the sizes your engine all-reduces (the evidence says which)";
  }
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

std::vector<SolHeadroom> find_headroom(const Measured& m, int world) {
  std::vector<SolHeadroom> out;
  const auto w = m.allreduce.find(world);
  if (w == m.allreduce.end()) return out;
  for (const auto& [size, at] : w->second) {
    SolHeadroom h{size, "", 0, "", 0};
    for (const auto& [variant, c] : at) {
      if (variant.rfind("nccl", 0) == 0 && (h.nccl_variant.empty() || c->median_us < h.nccl_us)) {
        h.nccl_variant = variant;
        h.nccl_us = c->median_us;
      }
      if (c->sol_us && *c->sol_us > 0 && (h.floor_variant.empty() || *c->sol_us < h.floor_us)) {
        h.floor_variant = variant;
        h.floor_us = *c->sol_us;
      }
    }
    if (!h.nccl_variant.empty() && !h.floor_variant.empty()) out.push_back(std::move(h));
  }
  return out;
}

Findings find_advantages(const Measured& m, int world, const VerdictOptions& opt) {
  Findings f;
  f.world = world;
  f.headroom = find_headroom(m, world);
  const std::vector<std::string> custom(std::begin(kCustomVariants), std::end(kCustomVariants));
  const std::string w = std::to_string(world);
  const bool pull = m.facts.pull_beats_push.value_or(false);
  f.custom = compare_groups(m.allreduce, world, "bytes", "a custom P2P all-reduce (arbench's one-shot or two-shot)",
                            custom, "NCCL's own choice", {"nccl"}, false, opt, pull);
  if (!f.custom.measured) {
    f.custom.missing = "arbench's custom kernels and `nccl` were not both measured at " + w + " GPUs";
    f.custom.run_line = allreduce_run_line(m, world, "nccl,oneshot-pull,oneshot-push,twoshot", "", "custom-" + w + ".json");
  }
  f.shots = compare_groups(m.allreduce, world, "bytes", "one-shot", {"oneshot-pull", "oneshot-push"}, "two-shot",
                           {"twoshot"}, true, opt, pull);
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

// ---- NCCL builds side by side (--nccl-lib)

std::vector<NcclBuildFinding> find_nccl_builds(const Measured& m, int world, const VerdictOptions& opt) {
  // Every library beside the default: recorded by the run, or named by a case.
  std::set<std::string> labels;
  for (const ResultNcclLibrary& l : m.facts.nccl_libraries)
    if (!l.label.empty()) labels.insert(l.label);
  for (const auto& [w, sizes] : m.allreduce)
    for (const auto& [size, at] : sizes)
      for (const auto& [variant, c] : at)
        if (const std::string lib = split_library(variant).library; !lib.empty()) labels.insert(lib);
  const std::string result = m.paths.empty() ? std::string("RESULT.json") : m.paths.front();
  std::vector<NcclBuildFinding> out;
  for (const std::string& label : labels) {
    NcclBuildFinding f;
    f.label = label;
    f.variant = with_library("nccl", label);
    f.default_version = m.facts.nccl_version;
    for (const ResultNcclLibrary& l : m.facts.nccl_libraries)
      if (l.label == label) {
        f.version = l.version;
        f.path = l.path;
      }
    const std::string them = nccl_text(f.version, f.variant), ours = nccl_text(f.default_version, "nccl");
    f.plain = compare_groups(m.allreduce, world, "bytes", them + ", its own choice", {f.variant},
                                 ours + ", its own choice", {"nccl"}, false, opt);
    const std::string symm = with_library("nccl-symm", label);
    f.symm = compare_groups(m.allreduce, world, "bytes", symm, {symm}, "nccl-symm", {"nccl-symm"}, false, opt);
    if (f.plain.measured) {
      judge(f, result);
    } else {
      f.verdict = "missing";
      f.summary = "`" + f.variant + "` and `nccl` were not both measured at " + std::to_string(world) + " GPUs";
      const std::string spec = f.path.empty() ? std::string("PATH")
                               : f.version == label ? f.path
                                                    : label + "=" + f.path;
      f.verify = allreduce_run_line(m, world, "nccl," + f.variant + ",nccl-symm," + symm, "--nccl-lib " + spec,
                                    "nccl-builds-" + std::to_string(world) + ".json");
      f.plain.missing = f.summary;
      f.plain.run_line = f.verify;
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace arbench
