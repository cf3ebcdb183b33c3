// SGLang's and TensorRT-LLM's sections (engines.hpp says what each status means; catalogue/ where
// each rule was read and for which releases). vLLM's is engines_vllm.cpp, FlashInfer's
// engines_fusion.cpp.
#include <algorithm>

#include "analysis/low_precision.hpp"
#include "settings/engines.hpp"

namespace arbench::engine_detail {

// --- SGLang ---------------------------------------------------------------------------------

EngineSection sglang_section(const EngineContext& c) {
  const Findings& f = c.f;
  const NcclPlan& p = c.p;
  EngineSection sec;
  sec.engine = "SGLang";
  const int w = c.world();
  const bool sm90_100 = c.gpu.cc_major() == 9 || c.gpu.cc_major() == 10;
  std::vector<std::string> flags, env;

  // Judged on the kernel SGLang runs: its first kernel dispatches like vLLM's (one-stage at 2 GPUs).
  EngineSetting ar = knob_setting(c, "sglang.custom_ar", S::keep);
  const Advantage car = custom_as_run(c, f.peer_vllm_custom);
  const std::string car_note = custom_as_run_note(f.peer_vllm_custom, "SGLang's first kernel");
  ar.evidence = car.boundary();
  if (!p.nvlink && w > 2) {
    ar.status = S::gated;
    ar.why = "SGLang turns its custom all-reduce off on more than two GPUs that are not all NVLink-connected "
             "(CustomAllReduceV2 needs NVLink at any count): --disable-custom-all-reduce changes nothing here";
    sec.settings.push_back(ar);
  } else if (!car.measured) {
    EngineSetting m = missing("sglang.custom_ar", f.custom.missing, f.custom.run_line);
    m.entry = ar.entry;
    m.versions = ar.versions;
    sec.settings.push_back(m);
  } else if (!p.nvlink && ar.entry->needs_nvlink) {
    // CustomAllReduceV2, SGLang's default from the release of PR #24363: NVLink only, no fallback to
    // the first kernel, so two PCIe GPUs run NCCL unless the first kernel is asked for.
    const std::string v2 = "SGLang's default CustomAllReduceV2 needs NVLink between every GPU pair and does not fall "
                           "back to its first kernel, so over PCIe it runs NCCL";
    if (car.lead > 0) {
      ar.status = S::set;
      ar.paste = "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0";
      ar.value = "the first custom kernel: it beats NCCL up to " + lead_text(car);
      ar.why = v2 + "; SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0 brings back the first kernel, which runs at two GPUs" +
               (car.everywhere ? "" : ", and is slower than NCCL at " + std::to_string(car.losses) + " of " +
                                          std::to_string(car.evidence.size()) + " sizes up to " +
                                          size_text(kCustomArMax, "bytes") + ", where it runs too");
      if (settle(ar)) env.push_back(ar.paste);
    } else {
      ar.value = "NCCL (what SGLang runs here)";
      ar.why = v2 + ", and NCCL is as fast or faster than the first kernel from the smallest size measured: nothing to "
               "set";
    }
    ar.why += "; " + car_note;
    sec.settings.push_back(ar);
  } else if (car.lead == 0) {
    disable_custom_all_reduce(ar, flags);
    ar.why += "; " + car_note;
    sec.settings.push_back(ar);
  } else {
    ar.value = "on (SGLang's default)";
    ar.why = car.a + " beats NCCL up to " + lead_text(car) + "; " + car_note;
    sec.settings.push_back(ar);
  }

  // FlashInfer's fusion: judged on FlashInfer's own kernel where the run has it (`flashinfer-fused`).
  EngineSetting fu = knob_setting(c, "sglang.fusion", S::keep);
  const Advantage& fa = peer_or_nearest(f.peer_fusion, f.fusion);
  const std::string fa_note = peer_note(f.peer_fusion, "flashinfer-fused", "fused-oneshot / fused-twoshot");
  fu.evidence = fa.boundary();
  const FiBuild fb = fi_fusion_build(c, "sglang");
  if (!fb.builds) {
    fu.status = S::gated;
    fu.why = fb.why + ": leave it off";
    sec.settings.push_back(fu);
  } else if (!sm90_100) {
    fu.status = S::gated;
    fu.why = "SGLang applies it on SM90 and SM100 only (this is " + (c.gpu.cc.empty() ? std::string("unknown") : c.gpu.cc) + ")";
    sec.settings.push_back(fu);
  } else if (!fa.measured) {
    sec.settings.push_back(missing("sglang.fusion", f.fusion.missing, f.fusion.run_line));
  } else if (fa.lead > 0) {
    fu.status = S::set;
    fu.paste = "--enable-flashinfer-allreduce-fusion";
    fu.value = "on (SGLang fuses up to 2048 tokens; measured faster up to " + lead_text(fa) + ")";
    fu.why = (f.peer_fusion.measured ? "FlashInfer's" : "arbench's") +
             std::string(" fused kernel beats the best unfused pair from the smallest token count; ") + fa_note;
    if (settle(fu)) flags.push_back(fu.paste);
    sec.settings.push_back(fu);
  } else {
    fu.value = "off";
    fu.why = "the fused kernel does not beat the unfused pair; " + fa_note;
    sec.settings.push_back(fu);
  }

  if (!sm90_100 || !p.nvlink) {
    EngineSetting t = knob_setting(c, "sglang.torch_symm", S::gated);
    t.why = !sm90_100 ? "size tables for SM90 and SM100 only" : "needs NVSwitch multicast, absent over PCIe";
    sec.settings.push_back(t);
  }

  EngineSetting ns = knob_setting(c, "sglang.nccl_symm", S::keep);
  std::string nccl_versions;
  const std::string gate = symm_kernels_gate(c, &nccl_versions);
  ns.versions += "; " + nccl_versions;
  if (!gate.empty()) {
    ns.status = S::gated;
    ns.why = gate;
    sec.settings.push_back(ns);
  } else if (!f.nccl_symm.measured) {
    sec.settings.push_back(missing("sglang.nccl_symm", f.nccl_symm.missing, f.nccl_symm.run_line));
  } else {
    ns.value = "off (SGLang's default)";
    for (const Evidence& e : f.nccl_symm.evidence)
      if (e.beats || e.loses) ns.evidence.push_back(e);
    ns.why = "NCCL on symmetric memory is faster than on plain buffers at " + std::to_string(f.nccl_symm.wins) +
             " and slower at " + std::to_string(f.nccl_symm.losses) + " of " +
             std::to_string(f.nccl_symm.evidence.size()) + " sizes";
    if (f.nccl_symm.wins > 0 && f.nccl_symm.losses == 0) {
      ns.status = S::set;
      ns.paste = "--enable-symm-mem";
      ns.value = "on";
    }
    if (settle(ns)) flags.push_back(ns.paste);
    sec.settings.push_back(ns);
  }

  // FlashInfer's PCIe IPC all-reduce, judged on FlashInfer's own kernel where the run has it. Only in
  // an open pull request: said, never offered as something to set.
  const Advantage& fi = peer_or_nearest(f.peer_pcie_ipc, f.custom);
  if ((w == 2 || w == 4 || w == 8) && fi.measured && fi.lead > 0 && !p.nvlink) {
    EngineSetting s = knob_setting(c, "sglang.pcie_ipc", S::gated);
    s.value = (f.peer_pcie_ipc.measured ? "FlashInfer's PCIe-IPC all-reduce" : "a custom P2P all-reduce") +
              std::string(" beats NCCL up to ") + lead_text(fi);
    s.why = "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE is only in SGLang PR #34528 (open): not in a release we could find; it "
            "would also need FlashInfer's PCIe IPC all-reduce (flashinfer.comm, in FlashInfer " +
            std::string(knob("flashinfer.pcie_ipc").first) + "); " +
            peer_note(f.peer_pcie_ipc, "flashinfer-pcie-ipc", "one-shot / two-shot");
    s.evidence = fi.boundary();
    sec.settings.push_back(s);
  }

  std::string env_line = nccl_env(p, c.paths);
  for (const std::string& e : env) env_line += (env_line.empty() ? "" : " ") + e;
  if (!env_line.empty() && std::find(flags.begin(), flags.end(), "--enable-symm-mem") == flags.end()) {
    // --enable-symm-mem sets it itself.
    EngineSetting s = knob_setting(c, "sglang.cumem", S::set);
    s.paste = "NCCL_CUMEM_ENABLE=1";
    s.value = "on (NCCL's own default)";
    s.why = "SGLang sets NCCL_CUMEM_ENABLE=0 unless the variable is set; older copies set it whatever it is, and "
            "then this changes nothing (the release of that change is not in a release we could find); the tuner "
            "table was measured with NCCL's default (on)";
    if (settle(s)) env_line += " " + s.paste;
    sec.settings.push_back(s);
  }
  sec.command = shell_lines(env_line, "python3 -m sglang.launch_server --model-path MODEL --tp " + std::to_string(w), flags);
  return sec;
}

// --- TensorRT-LLM ---------------------------------------------------------------------------

namespace {

// The FP8-on-the-wire variants (LOWPRECISION's stand-ins) against NCCL from 2,097,152 elements
// (TensorRT-LLM's minimum: 4 MiB in bf16).
inline constexpr const char* kLowPrecisionVariants[] = {"oneshot-fp8", "twoshot-fp8"};
constexpr std::uint64_t kLowPrecisionMinElements = 2097152;

EngineSetting lowprecision(const EngineContext& c) {
  EngineSetting s = knob_setting(c, "trtllm.lowprecision", S::gated);
  if (c.p.nvlink) {
    s.why = "TensorRT-LLM uses it only without NVLink";
    return s;
  }
  // One copy read passes the hidden size where the message's element count belongs (it never
  // engages), another the message size; which releases hold which is unknown (knobs_serving.cpp).
  s.value = "unknown: NCCL, or FP8 from 2,097,152 elements";
  s.why = "TensorRT-LLM needs at least 2,097,152 elements for LOWPRECISION; unknown for which releases it compares the "
          "message with that count (then it engages from 4 MiB in bf16) or the hidden size (at commit 01e2c3612da7: "
          "then it never engages for a real model and the all-reduce runs NCCL): both were read at commits not "
          "matched to a release; nothing to set";
  const std::uint64_t min_bytes = kLowPrecisionMinElements * std::uint64_t(c.m.dtype_bytes);
  int wins = 0, losses = 0, sizes = 0;
  if (const auto w = c.m.allreduce.find(c.world()); w != c.m.allreduce.end())
    for (const auto& [size, at] : w->second) {
      if (size < min_bytes || !at.count("nccl")) continue;
      const ResultCase* best = nullptr;
      for (const char* v : kLowPrecisionVariants)
        if (at.count(v) && (!best || at.at(v)->median_us < best->median_us)) best = at.at(v);
      if (!best) continue;
      const Evidence e = weigh(*best, *at.at("nccl"), "bytes", size, c.verdict);
      ++sizes, wins += e.beats, losses += e.loses;
      if (e.beats || e.loses) s.evidence.push_back(e);
    }
  if (sizes == 0) return s;
  s.why += ". Measured: FP8 on the wire is faster than NCCL at " + std::to_string(wins) + " and slower at " +
           std::to_string(losses) + " of " + std::to_string(sizes) + " sizes measured at " +
           size_text(min_bytes, "bytes") + " or more";
  // Where each low-precision variant beats every exact one, and its error there (analysis/low_precision.hpp).
  LowPrecisionOptions lp;
  lp.alpha = c.verdict.alpha;
  for (const LowPrecisionWin& lw : low_precision_wins(c.m.allreduce, lp))
    if (lw.world == c.world()) s.why += "; " + low_precision_summary(lw);
  return s;
}

}  // namespace

EngineSection trtllm_section(const EngineContext& c) {
  const Findings& f = c.f;
  const NcclPlan& p = c.p;
  EngineSection sec;
  sec.engine = "TensorRT-LLM";
  EngineSetting s = knob_setting(c, "trtllm.strategy", S::keep);
  s.evidence = f.custom.boundary();
  std::string strategy;
  if (!p.nvlink) {
    // AUTO, ONESHOT and TWOSHOT fall back to NCCL without NVLink; NCCL_SYMMETRIC is taken as given,
    // and runs NCCL's symmetric kernels where that NCCL runs them over PCIe.
    std::string nccl_versions;
    const std::string gate = symm_kernels_gate(c, &nccl_versions);
    s.versions += "; " + nccl_versions;
    s.value = "NCCL (AUTO, ONESHOT and TWOSHOT fall back to it here)";
    s.why = "without NVLink between every GPU pair TensorRT-LLM runs NCCL for AUTO, ONESHOT and TWOSHOT; UB, NCCL and "
            "NCCL_SYMMETRIC are taken as given";
    if (f.custom.measured && f.custom.lead > 0)
      s.why += "; a custom P2P kernel would beat NCCL up to " + lead_text(f.custom) + " here";
    if (!gate.empty()) {
      s.why += "; NCCL_SYMMETRIC would not help: " + gate;
    } else if (f.nccl_symm.measured && f.nccl_symm.wins > 0) {
      if (f.nccl_symm.losses == 0) {
        strategy = "NCCL_SYMMETRIC";
        s.status = S::try_it;
        s.why += "; NCCL_SYMMETRIC (NCCL's symmetric kernels, which this NCCL runs over PCIe) beats plain NCCL at " +
                 std::to_string(f.nccl_symm.wins) + " sizes measured and never loses";
      } else {
        s.why += "; NCCL_SYMMETRIC would be faster than plain NCCL at " + std::to_string(f.nccl_symm.wins) +
                 " and slower at " + std::to_string(f.nccl_symm.losses) + " of " +
                 std::to_string(f.nccl_symm.evidence.size()) + " sizes measured: one strategy holds for every size, "
                 "so NCCL stays";
      }
      for (const Evidence& e : f.nccl_symm.evidence)
        if (e.beats || e.loses) s.evidence.push_back(e);
    }
    if (!strategy.empty()) {
      s.value = strategy;
      s.paste = "allreduce_strategy: " + strategy;
    }
    settle(s);
    sec.settings.push_back(s);
  } else if (!f.custom.measured) {
    sec.settings.push_back(missing("trtllm.strategy", f.custom.missing, f.custom.run_line));
  } else {
    if (f.custom.wins == 0) {
      strategy = f.nccl_symm.measured && f.nccl_symm.wins > 0 && f.nccl_symm.losses == 0 ? "NCCL_SYMMETRIC" : "NCCL";
      s.status = strategy == "NCCL" ? S::set : S::try_it;
      s.why = "no custom kernel beats NCCL at any size measured" +
              std::string(strategy == "NCCL" ? "" : "; NCCL on symmetric memory beats plain NCCL and never loses");
      if (strategy != "NCCL") s.evidence = f.nccl_symm.boundary();
    } else if (f.custom.everywhere) {
      strategy = f.shots.measured && f.shots.lead == 0 ? "TWOSHOT" : "ONESHOT";
      s.status = S::try_it;
      s.why = "a custom P2P kernel beats NCCL at every size measured";
    } else {
      s.value = "AUTO (TensorRT-LLM's default)";
      s.why = "a custom P2P kernel beats NCCL up to " + lead_text(f.custom) +
              " and NCCL wins above: one strategy cannot follow that; AUTO switches by size (with TensorRT-LLM's "
              "thresholds, not this machine's)";
    }
    if (!strategy.empty()) {
      s.value = strategy;
      s.paste = "allreduce_strategy: " + strategy;
    }
    settle(s);
    sec.settings.push_back(s);
  }
  sec.settings.push_back(lowprecision(c));
  if (s.status == S::set) sec.command.push_back("printf 'allreduce_strategy: " + strategy + "\\n' > arbench-trtllm.yml");
  for (const std::string& line :
       shell_lines(nccl_env(p, c.paths), "trtllm-serve MODEL --tp_size " + std::to_string(p.world),
                   s.status == S::set ? std::vector<std::string>{"--extra_llm_api_options arbench-trtllm.yml"} : std::vector<std::string>{}))
    sec.command.push_back(line);
  return sec;
}

}  // namespace arbench::engine_detail
