// The knob catalogue's data; see knobs.hpp. Read in 2026: NCCL at its release tags (a git
// snapshot of NVIDIA/nccl), FlashInfer at its release tags (a snapshot of flashinfer-ai/flashinfer),
// the other engines from a code index at the commits named, which could not all be matched to a
// release: such entries say so (verified = false) and are never `set`.
#include "settings/catalogue/knobs.hpp"

#include <stdexcept>
#include <string>

namespace arbench {

namespace {
constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;
using K = KnobKind;
}  // namespace

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> k = {
      {.id = "nccl.tuner_plugin", .engine = "NCCL", .package = "nccl", .name = "NCCL_TUNER_PLUGIN",
       .kind = K::env_var, .values = "path of libarbench-nccl-tuner.so (+ ARBENCH_NCCL_TUNER_TABLE)",
       .conditions = "any GPU and topology",
       .what = "NCCL loads arbench's tuner plugin, which applies the measured table",
       .source = {"NVIDIA/nccl", "v2.28.9-1", "src/plugin/tuner.cc, src/include/plugin/tuner/tuner_v5.h, src/enqueue.cc"},
       .verified = true},
      {.id = "nccl.channels_env", .engine = "NCCL", .package = "nccl",
       .name = "NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_MIN/MAX_NCHANNELS", .kind = K::env_var, .values = "channel counts",
       .conditions = "read once per process",
       .what = "the communicators' channel counts, carried from the measurement's environment",
       .source = {"NVIDIA/nccl", "v2.28.9-1", "src/init.cc, src/graph/connect.cc, src/include/param.h"},
       .verified = true},
      {.id = "nccl.example_plugin", .engine = "NCCL", .package = "nccl", .name = "NCCL_TUNER_CONFIG_FILE",
       .kind = K::env_var, .values = "path of a CSV file",
       .conditions = "NCCL 2.30.3 or newer (2.28 and 2.29 crash on the first matching row)",
       .what = "NCCL's example tuner plugin with a CSV file of overrides",
       .source = {"NVIDIA/nccl", "v2.28.9-1, v2.30.7-1", "ext-tuner/example/plugin.c, plugins/tuner/example/plugin.c"},
       .verified = true,
       .caveat = "2.28 and 2.29 crash on the first matching row; every version to 2.30.7 sets one channel for "
                 "anything no row matches"},
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.28.0", .last = "2.29.1",
       .conditions = "registered symmetric buffers; any P2P topology, PCIe included",
       .what = "NCCL runs its symmetric kernels on symmetrically registered buffers",
       .source = {"NVIDIA/nccl", "v2.28.9-1", "src/sym_kernels.cc (ncclSymkAvailable: no topology check)"},
       .verified = true},
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.29.2",
       .conditions = "every GPU pair directly NVLink-connected",
       .what = "NCCL runs its symmetric kernels only where every GPU pair is directly NVLink-connected; over PCIe "
               "a symmetric window gets the ordinary kernels",
       .source = {"NVIDIA/nccl", "v2.29.2-1, v2.30.7-1",
                  "src/sym_kernels.cc (ncclSymkAvailable: isAllDirectNvlink); 2.29.2 release notes"},
       .verified = true, .needs_nvlink = true},
      {.id = "vllm.custom_ar", .engine = "vLLM", .package = "vllm", .name = "--disable-custom-all-reduce",
       .kind = K::flag, .values = "flag (default: custom all-reduce on)",
       .conditions = "2, 4, 6 or 8 GPUs; more than two only when every pair is NVLink-connected",
       .what = "vLLM's custom all-reduce: off on more than two GPUs not all NVLink-connected",
       .source = {"vllm-project/vllm", "docs.vllm.ai v0.9.2 and stable; index commit 00d618aab604",
                  "vllm/distributed/device_communicators/custom_all_reduce.py"},
       .verified = true},
      {.id = "vllm.custom_ar_shots", .engine = "vLLM", .package = "vllm", .name = "(none: not settable)",
       .kind = K::library_behaviour, .values = "-",
       .conditions = "2 GPUs: one-stage always; 4/8 NVLink GPUs: one-stage below 512/256 KiB (the "
                     "VLLM_CUSTOM_ALLREDUCE_ALGO of some forks is not upstream)",
       .what = "which custom kernel vLLM runs: at two GPUs always its one-stage (one-shot) kernel; no upstream "
               "variable switches it",
       .source = {"vllm-project/vllm", "index commit c9eabec7d862", "csrc/custom_all_reduce.cuh (REDUCE_CASE)"},
       .verified = false, .caveat = "read at a commit not matched to a release"},
      {.id = "vllm.nccl_symm", .engine = "vLLM", .package = "vllm", .name = "VLLM_USE_NCCL_SYMM_MEM",
       .kind = K::env_var, .values = "0 | 1 (default 0), with NCCL_CUMEM_ENABLE=1", .first = "0.11.0",
       .last = "0.16.0", .conditions = "4 or 8 GPUs; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL on symmetric memory at or above 2 MiB on 4 GPUs and 1 MiB on 8",
       .source = {"vllm-project/vllm", "index commit b250ac3dd5ef; docs.vllm.ai v0.11.0 (pynccl_allocator)",
                  "vllm/distributed/device_communicators/all_reduce_utils.py, vllm/envs.py"},
       .verified = false,
       .caveat = "the last release with this size rule is not pinned: PR #33839 (merged 2026-02-26) replaced it, "
                 "taken here as after 0.16",
       .sizes = {{0, 4, 0, 2 * MiB}, {0, 8, 0, 1 * MiB}}},
      {.id = "vllm.nccl_symm", .engine = "vLLM", .package = "vllm", .name = "VLLM_USE_NCCL_SYMM_MEM",
       .kind = K::env_var, .values = "0 | 1 (default 0), with NCCL_CUMEM_ENABLE=1", .first = "0.17.0",
       .conditions = "4 or 8 GPUs; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL on symmetric memory at or below 16 KiB, and at or above 512 KiB on 4 GPUs, 128 KiB on 8",
       .source = {"vllm-project/vllm", "PR #33839 (commit 31fb6f43, 2026-02-26); index commit 00d618aab604",
                  "vllm/distributed/device_communicators/all_reduce_utils.py (should_nccl_symm_mem_allreduce)"},
       .verified = false,
       .caveat = "the first release with this size rule is not pinned (PR #33839 merged 2026-02-26; taken here as "
                 "0.17.0)",
       .sizes = {{0, 4, 16 * KiB, 512 * KiB}, {0, 8, 16 * KiB, 128 * KiB}}},
      {.id = "vllm.torch_symm", .engine = "vLLM", .package = "vllm", .name = "VLLM_ALLREDUCE_USE_SYMM_MEM",
       .kind = K::env_var, .values = "0 | 1", .first = "0.10.2", .conditions = "capability 9.0 or 10.0 (size tables)",
       .what = "torch symmetric-memory all-reduce; no size table, so off, on other capabilities",
       .source = {"vllm-project/vllm", "docs.vllm.ai v0.10.2 (symm_mem.py); index commit b250ac3dd5ef",
                  "vllm/distributed/device_communicators/all_reduce_utils.py, symm_mem.py"},
       .verified = true},
      {.id = "vllm.fusion", .engine = "vLLM", .package = "vllm",
       .name = "pass_config.fuse_allreduce_rms, fi_allreduce_fusion_max_size_mb", .kind = K::config_key,
       .values = "true | false; MiB", .conditions = "default sizes for capability 90 and 100 only; FlashInfer kernel",
       .what = "the all-reduce + RMSNorm fusion pass (FlashInfer's kernel); one-shot up to its one-shot table's size, "
               "one-shot always where the table has no entry (12.x)",
       .source = {"vllm-project/vllm", "index commit 889b02f9497f; docs.vllm.ai v0.16.0",
                  "vllm/compilation/passes/fusion/allreduce_rms_fusion.py (_FI_ALLREDUCE_ONE_SHOT_MAX_SIZES_MB)"},
       .verified = true,
       .caveat = "read at a commit, the same on docs.vllm.ai v0.16.0 (its first release not pinned); FlashInfer's "
                 "kernel on SM12x over PCIe: correctness not verified",
       .sizes = {{90, 2, 32 * MiB, 0}, {90, 4, 2 * MiB, 0}, {90, 8, MiB / 2, 0},
                 {100, 2, 32 * MiB, 0}, {100, 4, 4 * MiB, 0}, {100, 8, 1 * MiB, 0}}},
      {.id = "vllm.fi_pcie_ipc", .engine = "vLLM", .package = "vllm",
       .name = "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC", .kind = K::env_var, .values = "0 | 1 (opt-in)",
       .conditions = "2, 4 or 8 GPUs over PCIe; bf16/fp16", .what = "FlashInfer's PCIe CUDA-IPC all-reduce",
       .source = {"vllm-project/vllm", "index commit fcf933f40ae0; docs.vllm.ai v0.32.0",
                  "vllm/distributed/device_communicators/flashinfer_pcie_ipc_all_reduce.py"},
       .verified = false,
       .caveat = "its default and the release it first shipped in are not verified; FlashInfer's kernel (it tunes "
                 "itself at start), not arbench's"},
      {.id = "sglang.custom_ar", .engine = "SGLang", .package = "sglang", .name = "--disable-custom-all-reduce",
       .kind = K::flag, .values = "flag (default: custom all-reduce on)",
       .conditions = "more than two GPUs only when every pair is NVLink-connected; CustomAllReduceV2 needs NVLink "
                     "at two too",
       .what = "SGLang's custom all-reduce: off on more than two GPUs not all NVLink-connected",
       .source = {"sgl-project/sglang", "index commits 004e6561cb8a (v1), custom_all_reduce_v2 (not resolved)",
                  "python/sglang/srt/distributed/device_communicators/custom_all_reduce.py, custom_all_reduce_v2.py"},
       .verified = false,
       .caveat = "read at commits not matched to a release; at two PCIe GPUs it runs only where SGLang uses its "
                 "first custom all-reduce (CustomAllReduceV2 needs NVLink)"},
      {.id = "sglang.fusion", .engine = "SGLang", .package = "sglang",
       .name = "--enable-flashinfer-allreduce-fusion", .kind = K::flag, .values = "flag",
       .conditions = "SM90 or SM100; at most 2048 tokens", .what = "FlashInfer's all-reduce + RMSNorm fusion",
       .source = {"sgl-project/sglang", "index commit fd3907ee4618", "python/sglang/srt/layers/communicator.py"},
       .verified = false, .caveat = "read at a commit not matched to a release (package index: sglang 0.5.23)"},
      {.id = "sglang.torch_symm", .engine = "SGLang", .package = "sglang", .name = "--enable-torch-symm-mem",
       .kind = K::flag, .values = "flag", .conditions = "SM90 or SM100 tables; NVSwitch multicast",
       .what = "torch symmetric-memory all-reduce",
       .source = {"sgl-project/sglang", "index commits 25b38cc2abad, 5a7255c6fb57",
                  "python/sglang/srt/distributed/device_communicators/all_reduce_utils.py, torch_symm_mem.py"},
       .verified = false, .caveat = "read at commits not matched to a release; the SM120 failure is read, not run"},
      {.id = "sglang.nccl_symm", .engine = "SGLang", .package = "sglang", .name = "--enable-symm-mem",
       .kind = K::flag, .values = "flag",
       .conditions = "every size; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL symmetric memory (also sets NCCL_CUMEM_ENABLE=1, NCCL_NVLS_ENABLE=1)",
       .source = {"sgl-project/sglang", "index commit 18bfdd16794a", "python/sglang/srt/entrypoints/engine.py"},
       .verified = false, .caveat = "read at a commit not matched to a release"},
      {.id = "sglang.cumem", .engine = "SGLang", .package = "sglang", .name = "NCCL_CUMEM_ENABLE",
       .kind = K::env_var, .values = "0 | 1 (SGLang sets 0 unless set)", .conditions = "any",
       .what = "NCCL's cuMem allocations; arbench measured NCCL's default (on)",
       .source = {"sgl-project/sglang", "index commit 18bfdd16794a", "python/sglang/srt/entrypoints/engine.py"},
       .verified = false, .caveat = "read at a commit not matched to a release"},
      {.id = "sglang.pcie_ipc", .engine = "SGLang", .package = "sglang", .name = "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE",
       .kind = K::env_var, .values = "0 | 1", .conditions = "2, 4 or 8 GPUs over PCIe",
       .what = "FlashInfer's PCIe IPC all-reduce",
       .source = {"sgl-project/sglang", "index commit 83d4b476d11e",
                  "python/sglang/srt/distributed/device_communicators/pcie_ipc_ar.py"},
       .verified = false,
       .caveat = "not verified to be in a tagged SGLang release; FlashInfer's kernel, not arbench's"},
      {.id = "trtllm.strategy", .engine = "TensorRT-LLM", .package = "tensorrt_llm", .name = "allreduce_strategy",
       .kind = K::config_key, .values = "AUTO | NCCL | ONESHOT | TWOSHOT | NCCL_SYMMETRIC | LOWPRECISION | ...",
       .conditions = "custom kernels only with P2P and NVLink between every pair: without NVLink every strategy, "
                     "AUTO included, falls back to NCCL",
       .what = "the all-reduce strategy, in a YAML given to trtllm-serve --config",
       .source = {"NVIDIA/TensorRT-LLM", "index commit 01e2c3612da7; API reference (TorchLlmArgs)",
                  "cpp/tensorrt_llm/thop/allreduceOp.cpp (ifFallbackToNCCL)"},
       .verified = false,
       .caveat = "read at a commit not matched to a release (package index: tensorrt-llm 1.2.1); NCCL_SYMMETRIC is "
                 "missing from older releases"},
      {.id = "trtllm.lowprecision", .engine = "TensorRT-LLM", .package = "tensorrt_llm",
       .name = "allreduce_strategy: LOWPRECISION", .kind = K::config_key, .values = "LOWPRECISION",
       .conditions = "no NVLink, P2P between every pair, messages of 2 MiB or more, built with FP8",
       .what = "FP8 (e4m3) on the wire: the only custom path TensorRT-LLM takes over PCIe",
       .source = {"NVIDIA/TensorRT-LLM", "index commit 01e2c3612da7",
                  "cpp/tensorrt_llm/thop/allreduceOp.cpp (isUsingLowPrecision), docs Low-Precision-AllReduce"},
       .verified = false,
       .caveat = "read at a commit not matched to a release; lossy: check your model's accuracy"},
      {.id = "flashinfer.use_oneshot", .engine = "FlashInfer", .package = "flashinfer", .name = "use_oneshot",
       .kind = K::api_argument, .values = "True | False | None (its own rule)", .first = "0.2.9",
       .conditions = "two-shot needs token_num > world_size (asserted)",
       .what = "one-shot or two-shot in trtllm_allreduce_fusion / allreduce_fusion",
       .source = {"flashinfer-ai/flashinfer", "v0.2.9, v0.3.0, v0.6.17",
                  "flashinfer/comm/trtllm_ar.py (assert token_num > world_size), flashinfer/comm/allreduce.py"},
       .verified = true,
       .caveat = "the trtllm_comm kernels are built for SM 9, 10 and 12, but their correctness over PCIe is not "
                 "verified"},
  };
  return k;
}

const Knob& knob(std::string_view id) {
  const Knob* found = nullptr;
  for (const Knob& k : knobs())
    if (k.id == id) found = &k;  // the last: the newest entry
  if (!found) throw std::out_of_range("unknown knob " + std::string(id));
  return *found;
}

}  // namespace arbench
