// vLLM's section (engines.hpp says what each status means; catalogue/knobs_vllm.cpp where each rule
// was read and for which releases), and the custom all-reduce as vLLM runs it (custom_as_run, which
// SGLang's first kernel shares); its fusion line is in engines_fusion.cpp.
#include <algorithm>
#include <optional>

#include "arbench/core/peer_dispatch.hpp"
#include "settings/engines.hpp"

namespace arbench::engine_detail {

Advantage custom_as_run(const EngineContext& c, const Advantage& peer) {
  if (peer.measured) return peer;
  const int w = c.world();
  // The sizes vLLM runs its one-stage kernel at (knobs_vllm.cpp, vllm.custom_ar_shots): at 2 GPUs
  // up to its maximum, on 4 and 8 NVLink GPUs below 512 / 256 KiB; two-stage above.
  std::uint64_t one_stage_max = 0;
  for (const SizeRule& r : knob("vllm.custom_ar_shots").sizes)
    if (r.world == w) one_stage_max = r.small_max;
  Advantage adv;
  adv.axis = "bytes";
  adv.b = "NCCL's own choice";
  adv.a = w == 2 ? "arbench's oneshot-pull (the one-stage schedule the engine runs at 2 GPUs, up to " +
                       size_text(kCustomArMax, "bytes") + ")"
                 : "arbench's oneshot-pull up to " + size_text(one_stage_max, "bytes") +
                       " and twoshot above (the engine's one-stage / two-stage schedule, up to " +
                       size_text(kCustomArMax, "bytes") + ")";
  const auto grid = c.m.allreduce.find(w);
  if (grid == c.m.allreduce.end()) return adv;
  bool leading = true;
  for (const auto& [size, at] : grid->second) {
    if (size > kCustomArMax) break;  // above it the engine runs NCCL
    const char* kernel = size <= one_stage_max ? "oneshot-pull" : "twoshot";
    if (!at.count(kernel) || !at.count("nccl")) continue;
    Evidence e = weigh(*at.at(kernel), *at.at("nccl"), "bytes", size, c.verdict);
    adv.wins += e.beats;
    adv.losses += e.loses;
    if (leading && e.beats) adv.lead = size;
    leading = leading && e.beats;
    adv.evidence.push_back(std::move(e));
  }
  adv.measured = !adv.evidence.empty();
  adv.everywhere = adv.measured && leading;
  return adv;
}

std::string custom_as_run_note(const Advantage& peer, const std::string& engine) {
  if (peer.measured) return "measured `vllm-custom`, the kernel itself";
  return "judged on the kernel " + engine + " runs here, as arbench's variant of the same schedule (oneshot-pull for "
         "its one-stage kernel, twoshot for its two-stage one), not the kernel itself: add `vllm-custom` to the run";
}

namespace {

EngineSetting nccl_symm(const EngineContext& c, std::vector<std::string>& env) {
  const int w = c.world();
  bool lacks = false;
  EngineSetting s = knob_setting(c, "vllm.nccl_symm", S::keep, &lacks);
  if (lacks) return s;
  const SizeRule* rule = size_rule(*s.entry, w);
  std::string nccl_versions;
  const std::string gate = symm_kernels_gate(c, &nccl_versions);
  s.versions += "; " + nccl_versions;
  if (!rule) {
    s.status = S::gated;
    s.why = "vLLM uses NCCL symmetric memory on 4 or 8 GPUs only";
    return s;
  }
  if (!gate.empty()) {
    s.status = S::gated;
    s.why = gate;
    return s;
  }
  const std::string where = rule_text(*rule) + ", where vLLM uses it";
  std::vector<Evidence> relevant;
  for (const Evidence& e : c.f.nccl_symm.evidence)
    if (uses(*rule, e.size)) relevant.push_back(e);
  if (relevant.empty()) {
    EngineSetting m = missing("vllm.nccl_symm", "`nccl-symm` and `nccl` were not both measured " + where,
                              allreduce_run_line(c.m, w, "nccl,nccl-symm", "", "nccl-symm-" + std::to_string(w) + ".json"));
    m.entry = s.entry;
    m.versions = s.versions;
    return m;
  }
  int wins = 0, losses = 0;
  for (const Evidence& e : relevant) {
    wins += e.beats, losses += e.loses;
    if (e.beats || e.loses) s.evidence.push_back(e);
  }
  s.value = "off (vLLM's default)";
  if (wins > 0 && losses == 0) {
    s.status = S::set;
    s.paste = "VLLM_USE_NCCL_SYMM_MEM=1 NCCL_CUMEM_ENABLE=1";
    s.value = "on";
  }
  s.why = "NCCL on symmetric memory is faster than on plain buffers at " + std::to_string(wins) + " and slower at " +
          std::to_string(losses) + " of " + std::to_string(relevant.size()) + " sizes measured " + where;
  if (settle(s)) env.push_back(s.paste);
  return s;
}

// FlashInfer's PCIe IPC all-reduce (VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC): a custom P2P kernel for
// PCIe boxes, in vLLM by 0.32.0 (absent in 0.23.0; 0.24 to 0.31 not read: unknown) and in FlashInfer's
// flashinfer.comm by 0.7.1 (absent up to v0.6.18rc7; 0.7.0 not read); judged on FlashInfer's own
// kernel where the run has it (`flashinfer-pcie-ipc`). Without it vLLM falls back to another backend,
// not necessarily NCCL. No line where every GPU pair is NVLink-connected.
std::optional<EngineSetting> pcie_ipc(const EngineContext& c) {
  const Findings& f = c.f;
  const int w = c.world();
  bool lacks = false;
  EngineSetting ipc = knob_setting(c, "vllm.fi_pcie_ipc", S::keep, &lacks);
  if (lacks) return ipc;
  const KnobFor vk = knob_for("vllm.fi_pcie_ipc", c.stack, std::nullopt);
  const KnobFor fk = knob_for("flashinfer.pcie_ipc", c.stack, std::nullopt);
  ipc.versions += "; " + fk.versions;
  const std::string fallback = "vLLM falls back to another all-reduce backend (its custom all-reduce at 2 GPUs, "
                               "else NCCL)";
  const Advantage& fi = peer_or_nearest(f.peer_pcie_ipc, f.custom);
  const std::string fi_note = peer_note(f.peer_pcie_ipc, "flashinfer-pcie-ipc", "one-shot / two-shot");
  if (fk.lacks) {
    ipc.status = S::gated;
    ipc.why = "the FlashInfer given has no PCIe IPC all-reduce (flashinfer.comm's PcieIpcAllReduceWorkspace: in no tag "
              "up to " + std::string(fk.entry->absent_through) + ", in the documentation of " +
              std::string(fk.entry->first) + "): " + fallback + "; nothing to set";
    return ipc;
  }
  if (w != 2 && w != 4 && w != 8) {
    ipc.status = S::gated;
    ipc.why = "supports 2, 4 or 8 GPUs";
    return ipc;
  }
  if (!fi.measured) return missing("vllm.fi_pcie_ipc", f.custom.missing, f.custom.run_line);
  if (c.p.nvlink) return std::nullopt;
  ipc.evidence = fi.boundary();
  if (fi.lead == 0) {
    ipc.value = "off (vLLM's default)";
    ipc.why = (f.peer_pcie_ipc.measured ? "FlashInfer's PCIe-IPC all-reduce does not beat NCCL at the smallest size "
                                          "measured; "
                                        : "no custom P2P kernel beats NCCL at the smallest size measured; ") + fi_note;
    return ipc;
  }
  ipc.status = S::try_it;
  ipc.paste = "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1";
  ipc.value = (f.peer_pcie_ipc.measured ? "FlashInfer's PCIe-IPC all-reduce" : "a custom P2P all-reduce") +
              std::string(" beats NCCL up to ") + lead_text(fi);
  std::string needs = fk.given && !fk.unknown
                          ? std::string("it needs FlashInfer's PCIe IPC all-reduce, which the FlashInfer given has")
                          : "it needs FlashInfer with flashinfer.comm's PCIe IPC all-reduce (" +
                                std::string(fk.entry->first) + " has it; no tag up to " +
                                std::string(fk.entry->absent_through) + " does; the releases between were not read)";
  ipc.why = needs + ", else " + fallback + "; it needs CUDA-graph capture sizes (none with --enforce-eager) and is "
            "refused under DBO (micro-batching); " + fi_note;
  if (vk.unknown) ipc.why = "unknown whether the vLLM given has it (" + vk.versions + "); " + ipc.why;
  return ipc;
}

}  // namespace

EngineSection vllm_section(const EngineContext& c) {
  const Findings& f = c.f;
  const NcclPlan& p = c.p;
  EngineSection sec;
  sec.engine = "vLLM";
  const int w = c.world();
  std::vector<std::string> env, flags;

  // Custom all-reduce, and which of its kernels runs: judged on vLLM's own kernel where the run has
  // it (`vllm-custom`), else on arbench's one-shot / two-shot.
  EngineSetting ar = knob_setting(c, "vllm.custom_ar", S::keep);
  const Advantage car = custom_as_run(c, f.peer_vllm_custom);
  const std::string car_note = custom_as_run_note(f.peer_vllm_custom, "vLLM");
  ar.evidence = car.boundary();
  // vLLM's own gate, the rule `tune` dispatches vllm-custom by (arbench/core/peer_dispatch.hpp).
  if (const std::string gate = peer_not_dispatchable("vllm-custom", {w, p.nvlink}); !gate.empty()) {
    ar.status = S::gated;
    ar.why = gate + "; nothing to set";
    if (car.measured) {
      ar.value = car.lead > 0 ? "a custom P2P kernel would beat NCCL up to " + lead_text(car) + " here"
                              : "a custom P2P kernel would not beat NCCL here";
      ar.why += "; " + car_note;
    }
    sec.settings.push_back(ar);
  } else if (!car.measured) {
    sec.settings.push_back(missing("vllm.custom_ar", "neither `vllm-custom` nor arbench's oneshot-pull / twoshot "
                                   "was measured with `nccl` at " + std::to_string(w) + " GPUs", f.custom.run_line));
  } else if (car.lead == 0) {
    disable_custom_all_reduce(ar, flags);
    ar.why += "; " + car_note;
    sec.settings.push_back(ar);
  } else {
    ar.value = "on (vLLM's default): beats NCCL up to " + lead_text(car);
    ar.why = car.a + " beats NCCL up to " + lead_text(car) +
             (car.everywhere ? ", at every size vLLM runs it"
                             : "; it is slower at " + std::to_string(car.losses) + " of " +
                                   std::to_string(car.evidence.size()) + " sizes up to " +
                                   size_text(kCustomArMax, "bytes") +
                                   ", where vLLM runs it too (its size limit is not settable): "
                                   "--disable-custom-all-reduce would trade the small sizes for those") +
             "; " + car_note;
    sec.settings.push_back(ar);
    if (f.shots.measured) {
      EngineSetting k = knob_setting(c, "vllm.custom_ar_shots", S::keep);
      k.evidence = f.shots.boundary();
      if (w == 2 && !f.shots.everywhere) {
        k.status = S::gated;
        k.value = "two-shot measured faster " + (f.shots.lead == 0 ? std::string("from the smallest size")
                                                                   : "above " + lead_text(f.shots));
        k.why = "vLLM cannot switch to two-shot: at two GPUs it always runs its one-stage kernel, and no upstream "
                "variable changes that";
      } else if (w == 2) {
        k.value = "one-shot at every size measured: the kernel vLLM runs at two GPUs";
      } else {
        k.value = "one-shot up to " + lead_text(f.shots) + " measured; vLLM switches by size itself";
        k.why = "one-stage below 512 KiB on up to 4 GPUs, 256 KiB on 8; not settable";
      }
      sec.settings.push_back(k);
    }
  }

  sec.settings.push_back(nccl_symm(c, env));

  if (c.gpu.cc == "10.3") {  // PR #37756 added it to the tables; its release is unknown
    EngineSetting t = knob_setting(c, "vllm.torch_symm", S::keep);
    t.value = "unknown";
    t.why = "vLLM PR #37756 added capability 10.3 to its size tables, in a release not known here (" +
            std::string(t.entry->caveat) + "); nothing measured to set";
    sec.settings.push_back(t);
  } else if (c.gpu.cc != "9.0" && c.gpu.cc != "10.0") {
    EngineSetting t = knob_setting(c, "vllm.torch_symm", S::gated);
    t.why = "vLLM has no size table for capability " + (c.gpu.cc.empty() ? std::string("(unknown)") : c.gpu.cc) +
            ": it stays off; nothing to set";
    sec.settings.push_back(t);
  }

  sec.settings.push_back(vllm_fusion(c, flags));

  if (const std::optional<EngineSetting> ipc = pcie_ipc(c)) sec.settings.push_back(*ipc);
  std::string env_line = nccl_env(p, c.paths);
  for (const std::string& e : env) env_line += (env_line.empty() ? "" : " ") + e;
  sec.command = shell_lines(env_line, "vllm serve MODEL --tensor-parallel-size " + std::to_string(w), flags);
  return sec;
}

}  // namespace arbench::engine_detail
