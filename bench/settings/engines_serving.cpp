// The serving engines' sections: vLLM, SGLang, TensorRT-LLM and FlashInfer's API (engines.hpp
// says what each status means; knobs.cpp where each knob was read).
#include <algorithm>

#include "settings/engines.hpp"
#include "settings/knobs.hpp"

namespace arbench::engine_detail {

// --- vLLM -----------------------------------------------------------------------------------

EngineSection vllm_section(const Measured& m, const NcclPlan& p, const Findings& f, const SettingsPaths& paths,
                           const GpuFacts& gpu) {
  EngineSection sec;
  sec.engine = "vLLM";
  const int w = p.world;
  std::vector<std::string> env, flags;
  const std::string plugin_env = nccl_env(p, paths);
  const bool custom_gated = !p.nvlink && w > 2;

  // Custom all-reduce.
  if (custom_gated) {
    EngineSetting s{"vllm.custom_ar", S::gated, "", "", "", {}, ""};
    s.why = "vLLM turns its custom all-reduce off on more than two GPUs that are not all NVLink-connected; nothing to set";
    if (f.custom.measured)
      s.value = f.custom.lead > 0 ? "a custom P2P kernel would beat NCCL up to " + lead_text(f.custom) + " here"
                                  : "a custom P2P kernel would not beat NCCL here";
    s.evidence = f.custom.boundary();
    sec.settings.push_back(s);
  } else if (!f.custom.measured) {
    sec.settings.push_back(missing("vllm.custom_ar", f.custom.missing, f.custom.run_line));
  } else if (f.custom.lead == 0) {
    EngineSetting s{"vllm.custom_ar", S::set, "--disable-custom-all-reduce", "off", "", f.custom.boundary(), ""};
    s.why = "NCCL is as fast or faster from the smallest size measured";
    flags.push_back(s.paste);
    sec.settings.push_back(s);
  } else {
    EngineSetting s{"vllm.custom_ar", S::keep, "", "on (vLLM's default) up to " + lead_text(f.custom), "", f.custom.boundary(), ""};
    s.why = "a custom P2P all-reduce beats NCCL up to " + lead_text(f.custom) +
            (f.custom.everywhere ? "" : "; vLLM uses its custom all-reduce below 8 MiB, which is not settable");
    sec.settings.push_back(s);
    // One-shot or two-shot, for the whole size range (the variable is not per size).
    if (f.shots.measured) {
      EngineSetting a{"vllm.custom_ar_algo", S::keep, "", "", "", f.shots.boundary(), ""};
      if (f.shots.everywhere) {
        a.status = S::try_it;
        a.paste = "VLLM_CUSTOM_ALLREDUCE_ALGO=1stage";
        a.value = "one-shot at every size measured";
      } else if (f.shots.lead == 0) {
        a.status = S::try_it;
        a.paste = "VLLM_CUSTOM_ALLREDUCE_ALGO=2stage";
        a.value = "two-shot from the smallest size measured";
      } else {
        a.value = "one-shot up to " + lead_text(f.shots) + ", two-shot above: leave vLLM's size switch";
      }
      a.why = "one variable for every size";
      sec.settings.push_back(a);
    }
  }

  // NCCL symmetric memory: vLLM uses it from 4 GPUs, at or above 2 MiB on 4 and 1 MiB on 8.
  {
    const std::uint64_t threshold = w == 4 ? 2u << 20 : w == 8 ? 1u << 20 : 0;
    if (w < 4) {
      sec.settings.push_back({"vllm.nccl_symm", S::gated, "", "", "vLLM uses NCCL symmetric memory from 4 GPUs", {}, ""});
    } else {
      std::vector<Evidence> relevant;  // the sizes vLLM would use it at
      for (const Evidence& e : f.nccl_symm.evidence)
        if (e.size >= threshold) relevant.push_back(e);
      const std::string where = threshold ? "at or above " + size_text(threshold, "bytes") + ", where vLLM uses it" : "";
      if (relevant.empty()) {
        sec.settings.push_back(missing("vllm.nccl_symm", "`nccl-symm` and `nccl` were not both measured " + where,
                                       "arbench run --backend cuda --gpus " + std::to_string(w) +
                                           " --family allreduce --dtype " + m.dtype + " --variants 'nccl,nccl-symm' -b " +
                                           size_arg(std::max<std::uint64_t>(threshold, 1024)) + " -e " +
                                           size_arg(std::max<std::uint64_t>(m.max_bytes(), threshold)) +
                                           " --out nccl-symm-" + std::to_string(w) + ".json"));
      } else {
        EngineSetting s{"vllm.nccl_symm", S::keep, "", "off (vLLM's default)", "", {}, ""};
        int wins = 0, losses = 0;
        for (const Evidence& e : relevant) {
          wins += e.beats, losses += e.loses;
          if (e.beats || e.loses) s.evidence.push_back(e);
        }
        if (wins > 0 && losses == 0) {
          s.status = S::set;
          s.paste = "VLLM_USE_NCCL_SYMM_MEM=1 NCCL_CUMEM_ENABLE=1";
          s.value = "on";
          env.push_back(s.paste);
        }
        s.why = "NCCL on symmetric memory is faster than on plain buffers at " + std::to_string(wins) +
                " and slower at " + std::to_string(losses) + " of " + std::to_string(relevant.size()) +
                " sizes measured " + where;
        sec.settings.push_back(s);
      }
    }
  }

  // Torch symmetric memory: size tables for 9.0 and 10.0 only.
  if (gpu.cc != "9.0" && gpu.cc != "10.0") {
    sec.settings.push_back({"vllm.torch_symm", S::gated, "", "", "vLLM has no size table for capability " +
                            (gpu.cc.empty() ? std::string("(unknown)") : gpu.cc) + ": it stays off; nothing to set", {}, ""});
  }

  // All-reduce + RMSNorm fusion.
  if (!f.fusion.measured) {
    sec.settings.push_back(missing("vllm.fusion", f.fusion.missing, f.fusion.run_line));
  } else if (f.fusion.lead == 0) {
    sec.settings.push_back({"vllm.fusion", S::keep, "", "off", "the fused kernel does not beat the best unfused pair "
                            "at the smallest token count measured", f.fusion.boundary(), ""});
  } else {
    const std::uint64_t bytes = f.fusion.lead * std::uint64_t(m.hidden) * std::uint64_t(m.dtype_bytes);
    EngineSetting s{"vllm.fusion", gpu.cc_major() == 9 || gpu.cc_major() == 10 ? S::set : S::try_it, "", "", "",
                    f.fusion.boundary(), ""};
    s.paste = "--compilation-config '{\"pass_config\": {\"fuse_allreduce_rms\": true, "
              "\"fi_allreduce_fusion_max_size_mb\": " + mib_value(bytes) + "}}'";
    s.value = "on up to " + std::to_string(f.fusion.lead) + " tokens x hidden " + std::to_string(m.hidden) + " x " +
              m.dtype + " = " + size_text(bytes, "bytes");
    s.why = "arbench's fused kernel beats the best unfused pair at every token count up to there; the engine's "
            "kernel is FlashInfer's, so check your own step time";
    if (s.status == S::set) flags.push_back(s.paste);
    sec.settings.push_back(s);
  }

  // FlashInfer's PCIe IPC all-reduce: a custom P2P kernel for PCIe boxes.
  if (w != 2 && w != 4 && w != 8) {
    sec.settings.push_back({"vllm.fi_pcie_ipc", S::gated, "", "", "supports 2, 4 or 8 GPUs", {}, ""});
  } else if (!f.custom.measured) {
    sec.settings.push_back(missing("vllm.fi_pcie_ipc", f.custom.missing, f.custom.run_line));
  } else if (f.custom.lead > 0 && !p.nvlink) {
    sec.settings.push_back({"vllm.fi_pcie_ipc", S::try_it, "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1",
                            "a custom P2P all-reduce beats NCCL up to " + lead_text(f.custom),
                            "a kernel of the same kind as arbench's one-shot / two-shot", f.custom.boundary(), ""});
  } else if (!p.nvlink) {
    sec.settings.push_back({"vllm.fi_pcie_ipc", S::keep, "", "off (vLLM's default)",
                            "no custom P2P kernel beats NCCL at the smallest size measured", f.custom.boundary(), ""});
  }

  // The command.
  std::string env_line = plugin_env;
  for (const std::string& e : env) env_line += (env_line.empty() ? "" : " ") + e;
  sec.command = shell_lines(env_line, "vllm serve MODEL --tensor-parallel-size " + std::to_string(w), flags);
  return sec;
}

// --- SGLang ---------------------------------------------------------------------------------

EngineSection sglang_section(const NcclPlan& p, const Findings& f, const SettingsPaths& paths, const GpuFacts& gpu) {
  EngineSection sec;
  sec.engine = "SGLang";
  const int w = p.world;
  std::vector<std::string> flags, env;

  if (!f.custom.measured) {
    sec.settings.push_back(missing("sglang.custom_ar", f.custom.missing, f.custom.run_line));
  } else if (f.custom.lead == 0) {
    sec.settings.push_back({"sglang.custom_ar", S::set, "--disable-custom-all-reduce", "off",
                            "NCCL is as fast or faster from the smallest size measured", f.custom.boundary(), ""});
    flags.push_back("--disable-custom-all-reduce");
  } else {
    sec.settings.push_back({"sglang.custom_ar", S::keep, "", "on (SGLang's default)",
                            "a custom P2P all-reduce beats NCCL up to " + lead_text(f.custom), f.custom.boundary(), ""});
  }

  if (gpu.cc_major() != 9 && gpu.cc_major() != 10) {
    sec.settings.push_back({"sglang.fusion", S::gated, "", "", "SGLang applies it on SM90 and SM100 only (this is " +
                            (gpu.cc.empty() ? std::string("unknown") : gpu.cc) + ")", f.fusion.boundary(), ""});
  } else if (!f.fusion.measured) {
    sec.settings.push_back(missing("sglang.fusion", f.fusion.missing, f.fusion.run_line));
  } else if (f.fusion.lead > 0) {
    EngineSetting s{"sglang.fusion", S::set, "--enable-flashinfer-allreduce-fusion",
                    "on (SGLang fuses up to 2048 tokens; measured faster up to " + lead_text(f.fusion) + ")", "",
                    f.fusion.boundary(), ""};
    s.why = "arbench's fused kernel beats the best unfused pair from the smallest token count";
    flags.push_back(s.paste);
    sec.settings.push_back(s);
  } else {
    sec.settings.push_back({"sglang.fusion", S::keep, "", "off", "the fused kernel does not beat the unfused pair",
                            f.fusion.boundary(), ""});
  }

  if (gpu.cc_major() != 9 && gpu.cc_major() != 10)
    sec.settings.push_back({"sglang.torch_symm", S::gated, "", "", "size tables for SM90 and SM100 only", {}, ""});
  else if (!p.nvlink)
    sec.settings.push_back({"sglang.torch_symm", S::gated, "", "", "needs NVSwitch multicast, absent over PCIe", {}, ""});

  if (!f.nccl_symm.measured) {
    sec.settings.push_back(missing("sglang.nccl_symm", f.nccl_symm.missing, f.nccl_symm.run_line));
  } else {
    EngineSetting s{"sglang.nccl_symm", S::keep, "", "off (SGLang's default)", "", {}, ""};
    for (const Evidence& e : f.nccl_symm.evidence)
      if (e.beats || e.loses) s.evidence.push_back(e);
    s.why = "NCCL on symmetric memory is faster than on plain buffers at " + std::to_string(f.nccl_symm.wins) +
            " and slower at " + std::to_string(f.nccl_symm.losses) + " of " +
            std::to_string(f.nccl_symm.evidence.size()) + " sizes";
    if (f.nccl_symm.wins > 0 && f.nccl_symm.losses == 0) {
      s.status = S::set;
      s.paste = "--enable-symm-mem";
      s.value = "on";
      flags.push_back(s.paste);
    }
    sec.settings.push_back(s);
  }

  if ((w == 2 || w == 4 || w == 8) && f.custom.measured && f.custom.lead > 0 && !p.nvlink)
    sec.settings.push_back({"sglang.pcie_ipc", S::try_it, "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1",
                            "a custom P2P all-reduce beats NCCL up to " + lead_text(f.custom),
                            "a kernel of the same kind as arbench's one-shot / two-shot", f.custom.boundary(), ""});

  std::string env_line = nccl_env(p, paths);
  if (!env_line.empty() && std::find(flags.begin(), flags.end(), "--enable-symm-mem") == flags.end()) {
    // --enable-symm-mem sets it itself.
    EngineSetting s{"sglang.cumem", S::set, "NCCL_CUMEM_ENABLE=1", "on (NCCL's own default)", "", {}, ""};
    s.why = "SGLang sets NCCL_CUMEM_ENABLE=0 unless the variable is set; the tuner table was measured with NCCL's "
            "default (on)";
    sec.settings.push_back(s);
    env_line += " " + s.paste;
  }
  sec.command = shell_lines(env_line, "python3 -m sglang.launch_server --model-path MODEL --tp " + std::to_string(w), flags);
  return sec;
}

// --- TensorRT-LLM ---------------------------------------------------------------------------

EngineSection trtllm_section(const NcclPlan& p, const Findings& f, const SettingsPaths& paths) {
  EngineSection sec;
  sec.engine = "TensorRT-LLM";
  EngineSetting s{"trtllm.strategy", S::keep, "", "", "", f.custom.boundary(), ""};
  std::string strategy;
  if (!f.custom.measured) {
    sec.settings.push_back(missing("trtllm.strategy", f.custom.missing, f.custom.run_line));
  } else if (f.custom.wins == 0) {
    strategy = f.nccl_symm.measured && f.nccl_symm.wins > 0 && f.nccl_symm.losses == 0 ? "NCCL_SYMMETRIC" : "NCCL";
    s.status = strategy == "NCCL" ? S::set : S::try_it;
    s.value = strategy;
    s.why = "no custom kernel beats NCCL at any size measured" +
            std::string(strategy == "NCCL" ? "" : "; NCCL on symmetric memory beats plain NCCL and never loses");
    if (strategy != "NCCL") s.evidence = f.nccl_symm.boundary();
  } else if (f.custom.everywhere) {
    strategy = f.shots.measured && f.shots.lead == 0 ? "TWOSHOT" : "ONESHOT";
    s.status = S::try_it;
    s.value = strategy;
    s.why = "a custom P2P kernel beats NCCL at every size measured";
  } else {
    s.value = "AUTO (TensorRT-LLM's default)";
    s.why = "a custom P2P kernel beats NCCL up to " + lead_text(f.custom) +
            " and NCCL wins above: one strategy cannot follow that; AUTO switches by size (with TensorRT-LLM's "
            "thresholds, not this machine's)";
  }
  if (!strategy.empty()) s.paste = "allreduce_strategy: " + strategy;
  if (f.custom.measured) sec.settings.push_back(s);
  if (s.status == S::set) sec.command.push_back("printf 'allreduce_strategy: " + strategy + "\\n' > arbench-trtllm.yml");
  for (const std::string& line : shell_lines(nccl_env(p, paths), "trtllm-serve MODEL --tp_size " + std::to_string(p.world),
                                             s.status == S::set ? std::vector<std::string>{"--config arbench-trtllm.yml"}
                                                                : std::vector<std::string>{}))
    sec.command.push_back(line);
  return sec;
}

// --- FlashInfer's API -----------------------------------------------------------------------

EngineSection flashinfer_section(const Measured& m, const Findings& f, const GpuFacts& gpu) {
  EngineSection sec;
  sec.engine = "FlashInfer";
  const int w = f.world;
  if (!f.fused_shots.measured) {
    sec.settings.push_back(missing("flashinfer.use_oneshot", f.fused_shots.missing, f.fused_shots.run_line));
    return sec;
  }
  EngineSetting s{"flashinfer.use_oneshot", gpu.cc_major() == 9 || gpu.cc_major() == 10 ? S::set : S::try_it, "", "",
                  "", f.fused_shots.boundary(), ""};
  if (f.fused_shots.everywhere) {
    s.paste = "use_oneshot=True";
    s.value = "one-shot at every token count measured (up to " + size_text(f.fused_shots.last_size(), "tokens") + ")";
  } else if (f.fused_shots.lead == 0) {
    s.paste = "use_oneshot=False";
    s.value = "two-shot from the smallest token count measured (two-shot needs token_num > " + std::to_string(w) + ")";
  } else {
    s.paste = "use_oneshot=(token_num <= " + std::to_string(f.fused_shots.lead) + ")";
    s.value = "one-shot up to " + std::to_string(f.fused_shots.lead) + " tokens, two-shot above";
  }
  // FlashInfer's own rule (use_oneshot=None): one-shot while token_num * hidden * 2 * world * itemsize
  // is at most {2: 512, 4: 64, 8: 42} MiB (tuned on B200).
  const double limit_mib = w == 2 ? 512 : w == 4 ? 64 : w == 8 ? 42 : 0;
  if (limit_mib > 0 && m.hidden > 0) {
    const auto tokens = std::uint64_t(limit_mib * 1048576.0 / (double(m.hidden) * 2 * w * m.dtype_bytes));
    s.why = "at hidden " + std::to_string(m.hidden) + " FlashInfer's own rule (use_oneshot=None, tuned on B200) "
            "switches after " + std::to_string(tokens) + " tokens";
  }
  sec.settings.push_back(s);
  return sec;
}

}  // namespace arbench::engine_detail
