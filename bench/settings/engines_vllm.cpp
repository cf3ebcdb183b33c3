// vLLM's section (engines.hpp says what each status means; knobs.cpp where each rule was read and
// for which releases).
#include <algorithm>

#include "arbench/core/peer_dispatch.hpp"
#include "settings/engines.hpp"

namespace arbench::engine_detail {
namespace {

// The sizes the entry's rule uses the path at, at `world` GPUs (and capability `cc`, 0: any).
const SizeRule* size_rule(const Knob& k, int world, int cc = 0) {
  for (const SizeRule& r : k.sizes)
    if (r.world == world && (r.cc == 0 || r.cc == cc)) return &r;
  return nullptr;
}

bool uses(const SizeRule& r, std::uint64_t size) {
  return (r.small_max > 0 && size <= r.small_max) || (r.large_min > 0 && size >= r.large_min);
}

std::string rule_text(const SizeRule& r) {
  std::string t;
  if (r.small_max > 0) t = "at or below " + size_text(r.small_max, "bytes");
  if (r.large_min > 0) t += (t.empty() ? "" : " and ") + std::string("at or above ") + size_text(r.large_min, "bytes");
  return t;
}

int cc_number(const GpuFacts& g) {  // "10.0" -> 100
  const int major = g.cc_major();
  const auto dot = g.cc.find('.');
  const bool minor = dot != std::string::npos && dot + 1 < g.cc.size();
  return major < 0 ? -1 : major * 10 + (minor ? g.cc[dot + 1] - '0' : 0);
}

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

// The fusion as vLLM runs it: at each token count the kernel vLLM picks (one-shot up to its
// one-shot table's size, two-shot above; one-shot always where the table has no entry for this
// capability) against the best unfused pair.
EngineSetting fusion(const EngineContext& c, std::vector<std::string>& flags) {
  const Findings& f = c.f;
  const int w = c.world();
  EngineSetting s = knob_setting(c, "vllm.fusion", S::keep);
  if (!f.fusion.measured) {
    EngineSetting m = missing("vllm.fusion", f.fusion.missing, f.fusion.run_line);
    m.entry = s.entry;
    m.versions = s.versions;
    return m;
  }
  const SizeRule* one_shot = size_rule(*s.entry, w, cc_number(c.gpu));
  std::uint64_t lead = 0;
  bool leading = true;
  const auto world = c.m.fused.find(w);
  std::vector<Evidence> all;
  // The case that ran FlashInfer's kernel as the user's vLLM release runs it: the kernel its table
  // picks, forced and launched as vLLM launches it (flashinfer-fused[oneshot] / [twoshot]), else
  // flashinfer-fused[vllm] (vLLM's rule at the run's capability: the same choice wherever the table of
  // the user's release has the capability's row as the newest does, 12.x included), else arbench's
  // fused kernel of the same kind.
  bool peer = false;
  for (const auto& [tokens, at] : world->second)
    peer = peer || at.count("flashinfer-fused[oneshot]") || at.count("flashinfer-fused[twoshot]") ||
           at.count("flashinfer-fused[vllm]");
  for (const auto& [tokens, at] : world->second) {
    const std::uint64_t bytes = tokens * std::uint64_t(c.m.hidden) * std::uint64_t(c.m.dtype_bytes);
    const bool oneshot = !one_shot || bytes <= one_shot->small_max;
    std::string kernel = peer ? (oneshot ? "flashinfer-fused[oneshot]" : "flashinfer-fused[twoshot]")
                              : (oneshot ? "fused-oneshot" : "fused-twoshot");
    if (peer && !at.count(kernel)) kernel = "flashinfer-fused[vllm]";
    const ResultCase* picked = at.count(kernel) ? at.at(kernel) : nullptr;
    const ResultCase* best = nullptr;
    for (const char* u : {"unfused-nccl", "unfused-oneshot"})
      if (at.count(u) && (!best || at.at(u)->median_us < best->median_us)) best = at.at(u);
    if (!picked || !best) continue;
    all.push_back(weigh(*picked, *best, "tokens", tokens, c.verdict));
    const Evidence& e = all.back();
    if (leading && e.beats) lead = tokens;
    leading = leading && e.beats;
  }
  const std::string kernels = one_shot ? "one-shot up to " + size_text(one_shot->small_max, "bytes") + ", two-shot above"
                                       : "one-shot at every size (its table has no entry for capability " +
                                             (c.gpu.cc.empty() ? std::string("unknown") : c.gpu.cc) + ")";
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].size == lead || (i > 0 && all[i - 1].size == lead) || (lead == 0 && i == 0)) s.evidence.push_back(all[i]);
  Advantage measured;  // what peer_note reads: whether FlashInfer's own kernel was measured
  measured.measured = peer;
  const std::string note = peer_note(measured, "flashinfer-fused[oneshot]` and `flashinfer-fused[twoshot]",
                                     "fused-oneshot / fused-twoshot");
  if (lead == 0) {
    s.value = "off";
    s.why = "the kernel vLLM runs here (" + kernels + ") does not beat the best unfused pair at the smallest token "
            "count; " + note;
    return s;
  }
  const std::uint64_t bytes = lead * std::uint64_t(c.m.hidden) * std::uint64_t(c.m.dtype_bytes);
  s.status = c.gpu.cc_major() == 9 || c.gpu.cc_major() == 10 ? S::set : S::try_it;
  s.paste = std::string(s.entry->paste);  // the key of the user's release (knobs.cpp)
  const bool sized = s.paste.find("{mib}") != std::string::npos;
  if (sized) s.paste.replace(s.paste.find("{mib}"), 5, mib_value(bytes));
  s.value = "on up to " + std::to_string(lead) + " tokens x hidden " + std::to_string(c.m.hidden) + " x " + c.m.dtype +
            " = " + size_text(bytes, "bytes");
  s.why = "judged on the kernel vLLM runs here (" + kernels + "): it beats the best unfused pair at every token count "
          "up to there; " + (peer ? note : "the engine's kernel is FlashInfer's: " + note);
  if (!sized)
    s.why += "; the size key of this release is not pinned, so the line sets only the switch (vLLM then fuses up to "
             "its own default size)";
  if (settle(s)) flags.push_back(s.paste);
  return s;
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
  const Advantage& car = peer_or_nearest(f.peer_vllm_custom, f.custom);
  const std::string car_note = peer_note(f.peer_vllm_custom, "vllm-custom", "one-shot / two-shot");
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
    sec.settings.push_back(missing("vllm.custom_ar", f.custom.missing, f.custom.run_line));
  } else if (car.lead == 0) {
    disable_custom_all_reduce(ar, flags);
    ar.why += "; " + car_note;
    sec.settings.push_back(ar);
  } else {
    ar.value = "on (vLLM's default) up to " + lead_text(car);
    ar.why = "a custom P2P all-reduce beats NCCL up to " + lead_text(car) +
             (car.everywhere ? "" : "; vLLM uses its custom all-reduce below 8 MiB, which is not settable") + "; " +
             car_note;
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

  if (c.gpu.cc != "9.0" && c.gpu.cc != "10.0") {
    EngineSetting t = knob_setting(c, "vllm.torch_symm", S::gated);
    t.why = "vLLM has no size table for capability " + (c.gpu.cc.empty() ? std::string("(unknown)") : c.gpu.cc) +
            ": it stays off; nothing to set";
    sec.settings.push_back(t);
  }

  sec.settings.push_back(fusion(c, flags));

  // FlashInfer's PCIe IPC all-reduce: a custom P2P kernel for PCIe boxes, in vLLM from 0.32.0 and in
  // FlashInfer only from source (no tag read has it); judged on FlashInfer's own kernel where the run
  // has it (`flashinfer-pcie-ipc`).
  bool no_ipc = false;
  EngineSetting ipc = knob_setting(c, "vllm.fi_pcie_ipc", S::keep, &no_ipc);
  const KnobFor fi_knob = knob_for("flashinfer.pcie_ipc", c.stack, std::nullopt);
  if (!no_ipc) ipc.versions += "; " + fi_knob.versions;
  const Advantage& fi = peer_or_nearest(f.peer_pcie_ipc, f.custom);
  const std::string fi_note = peer_note(f.peer_pcie_ipc, "flashinfer-pcie-ipc", "one-shot / two-shot");
  if (no_ipc) {
    sec.settings.push_back(ipc);
  } else if (fi_knob.lacks) {
    ipc.status = S::gated;
    ipc.why = "the FlashInfer given has no PCIe IPC all-reduce (it is on FlashInfer's " +
              std::string(fi_knob.entry->source.ref) + ", in no tag up to v0.6.18rc7): vLLM falls back to NCCL; "
              "nothing to set";
    sec.settings.push_back(ipc);
  } else if (w != 2 && w != 4 && w != 8) {
    ipc.status = S::gated;
    ipc.why = "supports 2, 4 or 8 GPUs";
    sec.settings.push_back(ipc);
  } else if (!fi.measured) {
    sec.settings.push_back(missing("vllm.fi_pcie_ipc", f.custom.missing, f.custom.run_line));
  } else if (!p.nvlink) {
    ipc.evidence = fi.boundary();
    if (fi.lead > 0) {
      ipc.status = S::try_it;
      ipc.paste = "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1";
      ipc.value = (f.peer_pcie_ipc.measured ? "FlashInfer's PCIe-IPC all-reduce" : "a custom P2P all-reduce") +
                  std::string(" beats NCCL up to ") + lead_text(fi);
      ipc.why = "it needs FlashInfer's PCIe IPC kernel, which no FlashInfer release we could find has (FlashInfer's " +
                std::string(fi_knob.entry->source.ref) + ": build it from source), else vLLM runs NCCL; " + fi_note;
    } else {
      ipc.value = "off (vLLM's default)";
      ipc.why = (f.peer_pcie_ipc.measured ? "FlashInfer's PCIe-IPC all-reduce does not beat NCCL at the smallest size "
                                            "measured; "
                                          : "no custom P2P kernel beats NCCL at the smallest size measured; ") + fi_note;
    }
    sec.settings.push_back(ipc);
  }

  std::string env_line = nccl_env(p, c.paths);
  for (const std::string& e : env) env_line += (env_line.empty() ? "" : " ") + e;
  sec.command = shell_lines(env_line, "vllm serve MODEL --tensor-parallel-size " + std::to_string(w), flags);
  return sec;
}

}  // namespace arbench::engine_detail
