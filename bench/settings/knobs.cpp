// The knob catalogue; see knobs.hpp. Sources: the NCCL repository at tag v2.28.9-1 (and
// v2.30.7-1 for the example plugin), and for the engines the files and pages named below, read
// in 2026; where a file could only be read at a commit that was not matched to a release, the
// caveat says so.
#include "settings/knobs.hpp"

#include <stdexcept>
#include <string>

namespace arbench {

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> k = {
      {"nccl.tuner_plugin", "NCCL", "tuner plugin (NCCL_TUNER_PLUGIN) with arbench's table (ARBENCH_NCCL_TUNER_TABLE)",
       "NCCL v2.28.9-1 src/plugin/tuner.cc, src/include/plugin/tuner/tuner_v5.h, src/enqueue.cc; "
       "libarbench-nccl-tuner.so (this repository)",
       true, ""},
      {"nccl.channels_env", "NCCL",
       "the communicators' channel counts (NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_MIN/MAX_NCHANNELS), carried from the "
       "measurement's environment",
       "NCCL v2.28.9-1 src/init.cc (minCTAs/maxCTAs), src/graph/connect.cc, src/include/param.h (read once per process)",
       true, ""},
      {"nccl.example_plugin", "NCCL", "NCCL's example tuner plugin with a CSV file (NCCL_TUNER_CONFIG_FILE)",
       "NCCL v2.28.9-1 ext-tuner/example/plugin.c, v2.30.7-1 plugins/tuner/example/plugin.c", true,
       "2.28 and 2.29 crash on the first matching row; every version to 2.30.7 sets one channel for anything no "
       "row matches"},
      {"vllm.custom_ar", "vLLM", "custom all-reduce (--disable-custom-all-reduce)",
       "vllm/distributed/device_communicators/custom_all_reduce.py (index commit 00d618aab604; same code on "
       "docs.vllm.ai stable)",
       true, "the release that commit belongs to is not pinned (package index: vllm 0.33.0)"},
      {"vllm.custom_ar_algo", "vLLM", "custom all-reduce algorithm (VLLM_CUSTOM_ALLREDUCE_ALGO=1stage|2stage)",
       "seen only in unattributed copies of vLLM's custom all-reduce launcher", false,
       "not found in an upstream vLLM release: check that your vLLM reads it"},
      {"vllm.nccl_symm", "vLLM", "NCCL symmetric memory (VLLM_USE_NCCL_SYMM_MEM=1 with NCCL_CUMEM_ENABLE=1)",
       "vllm/envs.py (default 0); vllm/distributed/device_communicators/all_reduce_utils.py (index commit "
       "b250ac3dd5ef: from 4 GPUs, at or above 2 MiB on 4 and 1 MiB on 8)",
       true, "the release that commit belongs to is not pinned (package index: vllm 0.33.0)"},
      {"vllm.torch_symm", "vLLM", "torch symmetric-memory all-reduce (VLLM_ALLREDUCE_USE_SYMM_MEM)",
       "vllm/distributed/device_communicators/all_reduce_utils.py (index commit b250ac3dd5ef): size tables for "
       "capability 9.0 and 10.0 only",
       true, "the release that commit belongs to is not pinned"},
      {"vllm.fusion", "vLLM",
       "all-reduce + RMSNorm fusion pass, FlashInfer kernel (pass_config.fuse_allreduce_rms, "
       "fi_allreduce_fusion_max_size_mb)",
       "vllm/compilation/passes/fusion/allreduce_rms_fusion.py (index commit 889b02f9497f; default sizes for "
       "capability 90 and 100 only, same on docs.vllm.ai v0.16.0)",
       true,
       "on capability 12.x vLLM has no default size and never enables it itself; FlashInfer builds the kernel for "
       "SM12x, but its correctness over PCIe is not verified: check your model's output"},
      {"vllm.fi_pcie_ipc", "vLLM", "FlashInfer PCIe CUDA-IPC all-reduce (VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1)",
       "vllm/distributed/device_communicators/flashinfer_pcie_ipc_all_reduce.py (index commit fcf933f40ae0); "
       "docs.vllm.ai v0.32.0",
       false,
       "recent and opt-in; its default and the release it first shipped in are not verified; FlashInfer's kernel "
       "(it tunes itself at start), not arbench's"},
      {"sglang.custom_ar", "SGLang", "custom all-reduce (--disable-custom-all-reduce)", "SGLang server arguments",
       true, "whether SGLang, like vLLM, turns it off on more than two PCIe-only GPUs is not verified"},
      {"sglang.fusion", "SGLang", "FlashInfer all-reduce fusion (--enable-flashinfer-allreduce-fusion)",
       "python/sglang/srt/layers/communicator.py (index commit fd3907ee4618): SM90 or SM100 only, at most 2048 tokens",
       true, "the release that commit belongs to is not pinned (package index: sglang 0.5.23)"},
      {"sglang.torch_symm", "SGLang", "torch symmetric-memory all-reduce (--enable-torch-symm-mem)",
       "python/sglang/srt/distributed/device_communicators/all_reduce_utils.py (index commit 25b38cc2abad), "
       "torch_symm_mem.py (5a7255c6fb57): tables for SM90 and SM100, needs NVSwitch multicast",
       true, "the failure on SM120 is read from the code, not run"},
      {"sglang.nccl_symm", "SGLang", "NCCL symmetric memory (--enable-symm-mem)",
       "python/sglang/srt/entrypoints/engine.py (index commit 18bfdd16794a): also sets NCCL_CUMEM_ENABLE=1 and "
       "NCCL_NVLS_ENABLE=1; without it SGLang sets NCCL_CUMEM_ENABLE=0 unless you set it",
       true, "the release that commit belongs to is not pinned"},
      {"sglang.cumem", "SGLang", "NCCL's cuMem allocations (NCCL_CUMEM_ENABLE=1)",
       "python/sglang/srt/entrypoints/engine.py (index commit 18bfdd16794a): NCCL_CUMEM_ENABLE=0 unless set or "
       "--enable-symm-mem",
       true, ""},
      {"sglang.pcie_ipc", "SGLang", "FlashInfer PCIe IPC all-reduce (SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1)",
       "python/sglang/srt/distributed/device_communicators/pcie_ipc_ar.py (index commit 83d4b476d11e)", false,
       "not verified to be in a tagged SGLang release; FlashInfer's kernel, not arbench's"},
      {"trtllm.strategy", "TensorRT-LLM", "all-reduce strategy (allreduce_strategy in the LLM API / --config YAML)",
       "TorchLlmArgs.allreduce_strategy (TensorRT-LLM API reference; package index: tensorrt-llm 1.2.1)", true,
       "ONESHOT / TWOSHOT / NCCL_SYMMETRIC on SM120 over PCIe are not verified; NCCL_SYMMETRIC is missing from older "
       "releases"},
      {"flashinfer.use_oneshot", "FlashInfer", "one-shot or two-shot in allreduce_fusion(..., use_oneshot=...)",
       "flashinfer/comm/allreduce.py, trtllm_ar.py (main fb28d7242b35, 0.6.18; docs.flashinfer.ai 0.7.1)", true,
       "the trtllm_comm kernels are built for SM 9, 10 and 12, but their correctness over PCIe is not verified"},
  };
  return k;
}

const Knob& knob(std::string_view id) {
  for (const Knob& k : knobs())
    if (k.id == id) return k;
  throw std::out_of_range("unknown knob " + std::string(id));
}

}  // namespace arbench
