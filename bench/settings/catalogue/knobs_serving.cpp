// SGLang's and TensorRT-LLM's entries of the knob catalogue (knob_data.hpp). Neither repository
// could be cloned here (over the size the tools bring), and both were read at commits of a code
// index not matched to a release: each entry says so, and names the docs page it rests on (SGLang's
// and TensorRT-LLM's docs are not versioned per release); scripts/check_catalogue.py reports them
// unprovable by clone.
#include "settings/catalogue/knob_data.hpp"

namespace arbench::knob_data {

namespace {
constexpr std::string_view kSglangArgs = "https://docs.sglang.ai/advanced_features/server_arguments.html (unversioned)";
constexpr std::string_view kTrtllmArgs =
    "https://nvidia.github.io/TensorRT-LLM/llm-api/reference.html (TorchLlmArgs; unversioned)";
}  // namespace

void add_serving(std::vector<Knob>& k) {
  // SGLang's first custom all-reduce until PR #24363 (merged 2026-05-04) made CustomAllReduceV2 the default.
  k.push_back(
      {.id = "sglang.custom_ar", .engine = "SGLang", .package = "sglang",
       .name = "--disable-custom-all-reduce", .kind = K::flag, .values = "flag (default: custom all-reduce on)",
       .last = "0.5.11",
       .conditions = "2 GPUs, or more when every pair is NVLink-connected; the kernel is adapted from vLLM's "
                     "csrc/custom_all_reduce.cuh (its header says so), taken to dispatch as vLLM's (one-stage at 2 "
                     "GPUs, up to 8 MiB)",
       .what = "SGLang's custom all-reduce (its first, CustomAllreduce): off on more than two GPUs not all "
               "NVLink-connected",
       .source = {"sgl-project/sglang", "index commit 004e6561cb8a",
                  "python/sglang/srt/distributed/device_communicators/custom_all_reduce.py (should_custom_ar)"},
       .verified = false,
       .caveat = "read at a commit not matched to a release; the last release before PR #24363 is taken as 0.5.11 "
                 "(its change is listed for 0.5.12, not read at a tag)",
       .docs_page = kSglangArgs});
  k.push_back(
      {.id = "sglang.custom_ar", .engine = "SGLang", .package = "sglang",
       .name = "--disable-custom-all-reduce, SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2", .kind = K::flag,
       .values = "flag (default: custom all-reduce on); 0 | 1 (default 1 on CUDA)", .first = "0.5.12",
       .conditions = "CustomAllReduceV2 only where every GPU pair is NVLink-connected, at any GPU count; it never "
                     "falls back to the first kernel (NCCL runs)",
       .what = "SGLang's custom all-reduce: CustomAllReduceV2 by default; SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0 "
               "brings back the first kernel (two GPUs over PCIe)",
       .source = {"sgl-project/sglang", "PR #24363 (merged 2026-05-04); index commits 08d6c0169a56, 263bc85d64ba",
                  "python/sglang/srt/distributed/device_communicators/custom_all_reduce_v2.py "
                  "(can_use_custom_all_reduce_v2), custom_all_reduce.py (dispatch_custom_allreduce)"},
       .verified = false,
       .caveat = "read at commits not matched to a release; the first release with V2 on by default is taken as "
                 "0.5.12 (PR #24363 is listed in its changes, not read at a tag)",
       .needs_nvlink = true, .docs_page = kSglangArgs});
  k.push_back(
      {.id = "sglang.fusion", .engine = "SGLang", .package = "sglang",
       .name = "--enable-flashinfer-allreduce-fusion", .kind = K::flag, .values = "flag",
       .conditions = "SM90 or SM100; at most 2048 tokens; FlashInfer's kernel (built for 12.x from FlashInfer 0.6.17 "
                     "only)",
       .what = "FlashInfer's all-reduce + RMSNorm fusion",
       .source = {"sgl-project/sglang", "index commit fd3907ee4618", "python/sglang/srt/layers/communicator.py"},
       .verified = false,
       .caveat = "read at a commit not matched to a release (package index: sglang 0.5.23): not in a release we "
                 "could find",
       .docs_page = kSglangArgs});
  k.push_back(
      {.id = "sglang.torch_symm", .engine = "SGLang", .package = "sglang", .name = "--enable-torch-symm-mem",
       .kind = K::flag, .values = "flag", .conditions = "SM90 or SM100 tables; NVSwitch multicast",
       .what = "torch symmetric-memory all-reduce",
       .source = {"sgl-project/sglang", "index commits 25b38cc2abad, 5a7255c6fb57",
                  "python/sglang/srt/distributed/device_communicators/all_reduce_utils.py, torch_symm_mem.py"},
       .verified = false,
       .caveat = "read at commits not matched to a release: not in a release we could find; the SM120 failure is "
                 "read, not run",
       .docs_page = kSglangArgs});
  k.push_back(
      {.id = "sglang.nccl_symm", .engine = "SGLang", .package = "sglang", .name = "--enable-symm-mem",
       .kind = K::flag, .values = "flag",
       .conditions = "every size; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL symmetric memory (also sets NCCL_CUMEM_ENABLE=1, NCCL_NVLS_ENABLE=1)",
       .source = {"sgl-project/sglang", "index commit 18bfdd16794a", "python/sglang/srt/entrypoints/engine.py"},
       .verified = false, .caveat = "read at a commit not matched to a release: not in a release we could find",
       .docs_page = kSglangArgs});
  k.push_back(
      {.id = "sglang.cumem", .engine = "SGLang", .package = "sglang", .name = "NCCL_CUMEM_ENABLE",
       .kind = K::env_var, .values = "0 | 1 (SGLang sets 0 unless set; older copies always)", .conditions = "any",
       .what = "NCCL's cuMem allocations; arbench measured NCCL's default (on)",
       .source = {"sgl-project/sglang", "index commit 18bfdd16794a; older index copies of the same file",
                  "python/sglang/srt/entrypoints/engine.py (_set_envs_and_config)"},
       .verified = false,
       .caveat = "newer copies set 0 only where the variable is unset, older ones overwrite it whatever it is; the "
                 "release of the change is not in a release we could find",
       .docs_page = "https://docs.sglang.ai/references/environment_variables.html (unversioned)"});
  k.push_back(
      {.id = "sglang.pcie_ipc", .engine = "SGLang", .package = "sglang", .name = "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE",
       .kind = K::env_var, .values = "0 | 1", .conditions = "2, 4 or 8 GPUs over PCIe; bf16; FlashInfer's PCIe IPC "
                                                            "all-reduce (flashinfer.comm, from 0.7.1)",
       .what = "FlashInfer's PCIe IPC all-reduce",
       .source = {"sgl-project/sglang", "PR #34528 (open); index commit 83d4b476d11e",
                  "python/sglang/srt/distributed/device_communicators/pcie_ipc_ar.py"},
       .verified = false,
       .caveat = "not in a release we could find: only in an open pull request; FlashInfer's kernel, not arbench's",
       .docs_page = "https://github.com/sgl-project/sglang/pull/34528 (open pull request; no docs page)"});
  k.push_back(
      {.id = "trtllm.strategy", .engine = "TensorRT-LLM", .package = "tensorrt_llm", .name = "allreduce_strategy",
       .kind = K::config_key, .values = "AUTO | NCCL | ONESHOT | TWOSHOT | NCCL_SYMMETRIC | LOWPRECISION | ...",
       .conditions = "ONESHOT, TWOSHOT and AUTO's custom kernels need P2P and NVLink between every pair (else NCCL); "
                     "UB, NCCL and NCCL_SYMMETRIC are taken as given, before any topology check",
       .what = "the all-reduce strategy, in the YAML given to trtllm-serve --extra_llm_api_options",
       .source = {"NVIDIA/TensorRT-LLM", "index commit 01e2c3612da7; API reference (TorchLlmArgs)",
                  "cpp/tensorrt_llm/thop/allreduceOp.cpp (selectImplementation, ifFallbackToNCCL)"},
       .verified = false,
       .caveat = "read at a commit not matched to a release (package index: tensorrt-llm 1.2.1): not in a release "
                 "we could find; NCCL_SYMMETRIC is missing from older releases",
       .docs_page = kTrtllmArgs});
  // Two copies of allreduceOp.cpp in the index disagree: 01e2c3612da7 compares the hidden size with
  // the threshold (never engages for a real model), another the message size (engages from
  // 2,097,152 elements). Which releases hold which is not known.
  k.push_back(
      {.id = "trtllm.lowprecision", .engine = "TensorRT-LLM", .package = "tensorrt_llm",
       .name = "allreduce_strategy: LOWPRECISION", .kind = K::config_key, .values = "LOWPRECISION",
       .conditions = "no NVLink, P2P between every pair, built with FP8, and at least 2,097,152 elements (4 MiB in "
                     "bf16) of whatever the release compares: the hidden size in one copy read, the message in another",
       .what = "FP8 (e4m3) on the wire where it engages; where the release compares the hidden size it never engages "
               "for a real model and NCCL runs; where it compares the message it engages from 2,097,152 elements",
       .source = {"NVIDIA/TensorRT-LLM", "index commit 01e2c3612da7; another index copy of allreduceOp.cpp",
                  "cpp/tensorrt_llm/thop/allreduceOp.cpp (selectImplementation: isUsingLowPrecision(hidden_size) at "
                  "01e2c3612da7, the message size in the other copy), tensorrt_llm/_torch/distributed/ops.py "
                  "(_strategy_supports: input.numel())"},
       .verified = false,
       .caveat = "unknown which releases compare the hidden size and which the message size: both copies were read "
                 "at commits not matched to a release (not in a release we could find), and the repository could "
                 "not be cloned here to read its tags; lossy: check your model's accuracy",
       .docs_page = kTrtllmArgs});
}

}  // namespace arbench::knob_data
