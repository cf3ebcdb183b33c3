// The knob catalogue's data; see knobs.hpp. Read in 2026: NCCL at its release tags (a git
// snapshot of NVIDIA/nccl, tags up to v2.30.7-1), FlashInfer at its release tags (a snapshot of
// flashinfer-ai/flashinfer, tags up to v0.6.18rc7), vLLM in its versioned docs (docs.vllm.ai/en/vX),
// the other engines from a code index at the commits named and from pull requests, which could not
// all be matched to a release: such entries say so (verified = false; "not in a release we could
// find" where no release was read) and are never `set`.
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
       .kind = K::env_var, .values = "path of libarbench-nccl-tuner.so (+ ARBENCH_NCCL_TUNER_TABLE)", .first = "2.28.3",
       .conditions = "any GPU and topology; NCCL 2.28 or newer (arbench's plugin exports tuner interfaces v5 and v6)",
       .what = "NCCL loads arbench's tuner plugin, which applies the measured table",
       .source = {"NVIDIA/nccl", "v2.27.7-1, v2.28.3-1, v2.28.9-1",
                  "src/plugin/tuner.cc, src/plugin/tuner/tuner_v5.cc (v2.27.7-1 looks up v4, v3, v2 only; v5 from "
                  "v2.28.3-1), src/include/plugin/tuner/tuner_v5.h, src/enqueue.cc",
                  "v2.27.7-1, v2.28.3-1, v2.28.9-1"},
       .verified = true},
      {.id = "nccl.channels_env", .engine = "NCCL", .package = "nccl",
       .name = "NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_MIN/MAX_NCHANNELS", .kind = K::env_var, .values = "channel counts",
       .conditions = "read once per process",
       .what = "the communicators' channel counts, carried from the measurement's environment",
       .source = {"NVIDIA/nccl", "v2.28.9-1", "src/init.cc, src/graph/connect.cc, src/include/param.h", "v2.28.9-1"},
       .verified = true},
      {.id = "nccl.example_plugin", .engine = "NCCL", .package = "nccl", .name = "NCCL_TUNER_CONFIG_FILE",
       .kind = K::env_var, .values = "path of a CSV file", .first = "2.30.3",
       .conditions = "NCCL 2.30.3 or newer (2.28 and 2.29 crash on the first matching row)",
       .what = "NCCL's example tuner plugin with a CSV file of overrides",
       .source = {"NVIDIA/nccl", "v2.28.9-1, v2.29.7-1, v2.30.3-1, v2.30.7-1",
                  "ext-tuner/example/plugin.c, plugins/tuner/example/plugin.c (pluginGetCollInfo's cost-table "
                  "indexing: as float** to v2.29.7-1, fixed in v2.30.3-1)",
                  "v2.28.9-1, v2.29.7-1, v2.30.3-1, v2.30.7-1"},
       .verified = true,
       .caveat = "2.28 and 2.29 crash on the first matching row; every version to 2.30.7 sets one channel for "
                 "anything no row matches"},
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.27.3", .last = "2.27.7",
       .conditions = "one node, every GPU pair directly P2P-connected, PCIe included (isAllDirectP2p), cuMem on; one "
                     "collective per group",
       .what = "NCCL runs its symmetric kernels on symmetrically registered buffers (no NVLink check)",
       .source = {"NVIDIA/nccl", "v2.27.3-1, v2.27.7-1",
                  "src/enqueue.cc (ncclPrepareTasks), src/symmetric.cc (ncclSymPickKernel), src/init.cc "
                  "(symmetricSupport), src/transport.cc (isAllDirectP2p); 2.27.3 release notes",
                  "v2.27.3-1, v2.27.7-1"},
       .verified = true},
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.28.0", .last = "2.29.1",
       .conditions = "registered symmetric buffers; any P2P topology, PCIe included",
       .what = "NCCL runs its symmetric kernels on symmetrically registered buffers",
       .source = {"NVIDIA/nccl", "v2.28.9-1", "src/sym_kernels.cc (ncclSymkAvailable: no topology check)",
                  "v2.28.9-1"},
       .verified = true},
      {.id = "nccl.symm_kernels", .engine = "NCCL", .package = "nccl", .name = "(symmetric kernels)",
       .kind = K::library_behaviour, .values = "-", .first = "2.29.2",
       .conditions = "every GPU pair directly NVLink-connected",
       .what = "NCCL runs its symmetric kernels only where every GPU pair is directly NVLink-connected; over PCIe "
               "a symmetric window gets the ordinary kernels",
       .source = {"NVIDIA/nccl", "v2.29.2-1, v2.30.7-1",
                  "src/sym_kernels.cc (ncclSymkAvailable: isAllDirectNvlink); 2.29.2 release notes",
                  "v2.29.2-1, v2.30.7-1"},
       .verified = true, .needs_nvlink = true},
      {.id = "vllm.custom_ar", .engine = "vLLM", .package = "vllm", .name = "--disable-custom-all-reduce",
       .kind = K::flag, .values = "flag (default: custom all-reduce on)",
       .conditions = "2, 4, 6 or 8 GPUs; more than two only when every pair is NVLink-connected",
       .what = "vLLM's custom all-reduce: off on more than two GPUs not all NVLink-connected",
       .source = {"vllm-project/vllm", "docs.vllm.ai v0.9.2 and stable; index commit 00d618aab604",
                  "vllm/distributed/device_communicators/custom_all_reduce.py", "docs.vllm.ai v0.9.2"},
       .verified = true},
      {.id = "vllm.custom_ar_shots", .engine = "vLLM", .package = "vllm", .name = "(none: not settable)",
       .kind = K::library_behaviour, .values = "-",
       .conditions = "2 GPUs: one-stage always; 4/8 NVLink GPUs: one-stage below 512/256 KiB (the "
                     "VLLM_CUSTOM_ALLREDUCE_ALGO of some forks is not upstream)",
       .what = "which custom kernel vLLM runs: at two GPUs always its one-stage (one-shot) kernel; no upstream "
               "variable switches it",
       .source = {"vllm-project/vllm", "index commit c9eabec7d862", "csrc/custom_all_reduce.cuh (REDUCE_CASE)"},
       .verified = false, .caveat = "read at a commit not matched to a release: not in a release we could find"},
      {.id = "vllm.nccl_symm", .engine = "vLLM", .package = "vllm", .name = "VLLM_USE_NCCL_SYMM_MEM",
       .kind = K::env_var, .values = "0 | 1 (default 0), with NCCL_CUMEM_ENABLE=1", .first = "0.11.0",
       .last = "0.16.0", .conditions = "4 or 8 GPUs; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL on symmetric memory at or above 2 MiB on 4 GPUs and 1 MiB on 8",
       .source = {"vllm-project/vllm", "index commit b250ac3dd5ef; docs.vllm.ai v0.11.0 (pynccl_allocator)",
                  "vllm/distributed/device_communicators/all_reduce_utils.py, vllm/envs.py", "docs.vllm.ai v0.11.0"},
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
                  "vllm/distributed/device_communicators/all_reduce_utils.py, symm_mem.py", "docs.vllm.ai v0.10.2"},
       .verified = true},
      // The pass's switch was renamed by PR #29646 (merged 2025-12; the docs of 0.12.0 have the new name).
      {.id = "vllm.fusion", .engine = "vLLM", .package = "vllm", .name = "pass_config.enable_fi_allreduce_fusion",
       .kind = K::config_key, .values = "true | false", .last = "0.11.2",
       .conditions = "default sizes for capability 90 and 100 only; FlashInfer kernel",
       .what = "the all-reduce + RMSNorm fusion pass (FlashInfer's kernel), switched on by its name before the "
               "rename",
       .source = {"vllm-project/vllm", "PR #29646 (the rename: its diff removes enable_fi_allreduce_fusion); "
                                       "docs.vllm.ai v0.12.0 (the new name)",
                  "vllm/config/compilation.py (PassConfig), vllm/config/vllm.py", "docs.vllm.ai v0.12.0"},
       .verified = false,
       .caveat = "which size key 0.11.x takes (fi_allreduce_fusion_max_token_num, or fi_allreduce_fusion_max_size_mb "
                 "after PR #24248) and its one-shot table are not pinned to a release: the paste sets only the "
                 "switch, and the kernel choice is judged by the table of 0.15.0's and 0.16.0's docs",
       .sizes = {{90, 2, 32 * MiB, 0}, {90, 4, 2 * MiB, 0}, {90, 8, MiB / 2, 0},
                 {100, 2, 32 * MiB, 0}, {100, 4, 4 * MiB, 0}, {100, 8, 1 * MiB, 0}},
       .paste = "--compilation-config '{\"pass_config\": {\"enable_fi_allreduce_fusion\": true}}'"},
      {.id = "vllm.fusion", .engine = "vLLM", .package = "vllm",
       .name = "pass_config.fuse_allreduce_rms, fi_allreduce_fusion_max_size_mb", .kind = K::config_key,
       .values = "true | false; MiB", .first = "0.12.0",
       .conditions = "default sizes for capability 90 and 100 only; FlashInfer kernel",
       .what = "the all-reduce + RMSNorm fusion pass (FlashInfer's kernel); one-shot up to its one-shot table's size, "
               "one-shot always where the table has no entry (12.x)",
       .source = {"vllm-project/vllm", "docs.vllm.ai v0.12.0, v0.15.0, v0.16.0; index commit 889b02f9497f",
                  "vllm/config/vllm.py (fuse_allreduce_rms), vllm/compilation/passes/fusion/allreduce_rms_fusion.py "
                  "(_FI_ALLREDUCE_ONE_SHOT_MAX_SIZES_MB)",
                  "docs.vllm.ai v0.12.0, v0.15.0, v0.16.0"},
       .verified = true,
       .caveat = "the one-shot table read in the docs of 0.15.0 and 0.16.0; FlashInfer's kernel on SM12x over PCIe: "
                 "correctness not verified",
       .sizes = {{90, 2, 32 * MiB, 0}, {90, 4, 2 * MiB, 0}, {90, 8, MiB / 2, 0},
                 {100, 2, 32 * MiB, 0}, {100, 4, 4 * MiB, 0}, {100, 8, 1 * MiB, 0}},
       .paste = "--compilation-config '{\"pass_config\": {\"fuse_allreduce_rms\": true, "
                "\"fi_allreduce_fusion_max_size_mb\": {mib}}}'"},
      {.id = "vllm.fi_pcie_ipc", .engine = "vLLM", .package = "vllm",
       .name = "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC", .kind = K::env_var, .values = "0 | 1 (opt-in)",
       .first = "0.32.0",
       .conditions = "2, 4 or 8 GPUs over PCIe; bf16/fp16; FlashInfer with its PCIe IPC kernel (from source: "
                     "flashinfer.pcie_ipc), else vLLM falls back to NCCL",
       .what = "FlashInfer's PCIe CUDA-IPC all-reduce",
       .source = {"vllm-project/vllm", "PR #53576 (opened 2026-08-24); docs.vllm.ai v0.32.0; index commit fcf933f40ae0",
                  "vllm/distributed/device_communicators/flashinfer_pcie_ipc_all_reduce.py", "docs.vllm.ai v0.32.0"},
       .verified = false,
       .caveat = "its first release is taken from the docs of 0.32.0 (the earliest read that list the module); "
                 "FlashInfer's kernel (it tunes itself at start), not arbench's"},
      {.id = "flashinfer.pcie_ipc", .engine = "FlashInfer", .package = "flashinfer", .name = "pcie_ipc_comm",
       .kind = K::library_behaviour, .values = "-", .conditions = "one PCIe-only node (no NVLink, no multicast)",
       .what = "FlashInfer's CUDA-IPC all-reduce for PCIe boxes, which vLLM's VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC "
               "needs",
       .source = {"flashinfer-ai/flashinfer", "main, commit 299e6d11e (PR #4393, 2026-08-20)",
                  "flashinfer/comm (pcie_ipc_comm); no tag up to v0.6.18rc7 contains the commit"},
       .verified = false,
       .caveat = "not in a release we could find: on FlashInfer's main branch only (built from source); no tag up "
                 "to v0.6.18rc7 has it",
       .absent_through = "0.6.18rc7"},
      // SGLang's first custom all-reduce until PR #24363 (merged 2026-05-04) made CustomAllReduceV2 the default.
      {.id = "sglang.custom_ar", .engine = "SGLang", .package = "sglang",
       .name = "--disable-custom-all-reduce", .kind = K::flag, .values = "flag (default: custom all-reduce on)",
       .last = "0.5.11",
       .conditions = "2 GPUs, or more when every pair is NVLink-connected",
       .what = "SGLang's custom all-reduce (its first, CustomAllreduce): off on more than two GPUs not all "
               "NVLink-connected",
       .source = {"sgl-project/sglang", "index commit 004e6561cb8a",
                  "python/sglang/srt/distributed/device_communicators/custom_all_reduce.py (should_custom_ar)"},
       .verified = false,
       .caveat = "read at a commit not matched to a release; the last release before PR #24363 is taken as 0.5.11 "
                 "(its change is listed for 0.5.12, not read at a tag)"},
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
       .needs_nvlink = true},
      {.id = "sglang.fusion", .engine = "SGLang", .package = "sglang",
       .name = "--enable-flashinfer-allreduce-fusion", .kind = K::flag, .values = "flag",
       .conditions = "SM90 or SM100; at most 2048 tokens", .what = "FlashInfer's all-reduce + RMSNorm fusion",
       .source = {"sgl-project/sglang", "index commit fd3907ee4618", "python/sglang/srt/layers/communicator.py"},
       .verified = false,
       .caveat = "read at a commit not matched to a release (package index: sglang 0.5.23): not in a release we "
                 "could find"},
      {.id = "sglang.torch_symm", .engine = "SGLang", .package = "sglang", .name = "--enable-torch-symm-mem",
       .kind = K::flag, .values = "flag", .conditions = "SM90 or SM100 tables; NVSwitch multicast",
       .what = "torch symmetric-memory all-reduce",
       .source = {"sgl-project/sglang", "index commits 25b38cc2abad, 5a7255c6fb57",
                  "python/sglang/srt/distributed/device_communicators/all_reduce_utils.py, torch_symm_mem.py"},
       .verified = false,
       .caveat = "read at commits not matched to a release: not in a release we could find; the SM120 failure is "
                 "read, not run"},
      {.id = "sglang.nccl_symm", .engine = "SGLang", .package = "sglang", .name = "--enable-symm-mem",
       .kind = K::flag, .values = "flag",
       .conditions = "every size; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL symmetric memory (also sets NCCL_CUMEM_ENABLE=1, NCCL_NVLS_ENABLE=1)",
       .source = {"sgl-project/sglang", "index commit 18bfdd16794a", "python/sglang/srt/entrypoints/engine.py"},
       .verified = false, .caveat = "read at a commit not matched to a release: not in a release we could find"},
      {.id = "sglang.cumem", .engine = "SGLang", .package = "sglang", .name = "NCCL_CUMEM_ENABLE",
       .kind = K::env_var, .values = "0 | 1 (SGLang sets 0 unless set; older copies always)", .conditions = "any",
       .what = "NCCL's cuMem allocations; arbench measured NCCL's default (on)",
       .source = {"sgl-project/sglang", "index commit 18bfdd16794a; older index copies of the same file",
                  "python/sglang/srt/entrypoints/engine.py (_set_envs_and_config)"},
       .verified = false,
       .caveat = "newer copies set 0 only where the variable is unset, older ones overwrite it whatever it is; the "
                 "release of the change is not in a release we could find"},
      {.id = "sglang.pcie_ipc", .engine = "SGLang", .package = "sglang", .name = "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE",
       .kind = K::env_var, .values = "0 | 1", .conditions = "2, 4 or 8 GPUs over PCIe; bf16; FlashInfer's PCIe IPC "
                                                            "kernel (from source)",
       .what = "FlashInfer's PCIe IPC all-reduce",
       .source = {"sgl-project/sglang", "PR #34528 (open); index commit 83d4b476d11e",
                  "python/sglang/srt/distributed/device_communicators/pcie_ipc_ar.py"},
       .verified = false,
       .caveat = "not in a release we could find: only in an open pull request; FlashInfer's kernel, not arbench's"},
      {.id = "trtllm.strategy", .engine = "TensorRT-LLM", .package = "tensorrt_llm", .name = "allreduce_strategy",
       .kind = K::config_key, .values = "AUTO | NCCL | ONESHOT | TWOSHOT | NCCL_SYMMETRIC | LOWPRECISION | ...",
       .conditions = "ONESHOT, TWOSHOT and AUTO's custom kernels need P2P and NVLink between every pair (else NCCL); "
                     "UB, NCCL and NCCL_SYMMETRIC are taken as given, before any topology check",
       .what = "the all-reduce strategy, in the YAML given to trtllm-serve --extra_llm_api_options",
       .source = {"NVIDIA/TensorRT-LLM", "index commit 01e2c3612da7; API reference (TorchLlmArgs)",
                  "cpp/tensorrt_llm/thop/allreduceOp.cpp (selectImplementation, ifFallbackToNCCL)"},
       .verified = false,
       .caveat = "read at a commit not matched to a release (package index: tensorrt-llm 1.2.1): not in a release "
                 "we could find; NCCL_SYMMETRIC is missing from older releases"},
      {.id = "trtllm.lowprecision", .engine = "TensorRT-LLM", .package = "tensorrt_llm",
       .name = "allreduce_strategy: LOWPRECISION", .kind = K::config_key, .values = "LOWPRECISION",
       .conditions = "no NVLink, P2P between every pair, at least 2,097,152 elements (4 MiB in bf16), built with "
                     "FP8; the C++ at the commit read compares the hidden size, not the message, with that count",
       .what = "FP8 (e4m3) on the wire; at the commit read it never engages for a real model (hidden sizes are far "
               "below 2,097,152), and the all-reduce runs NCCL",
       .source = {"NVIDIA/TensorRT-LLM", "index commit 01e2c3612da7",
                  "cpp/tensorrt_llm/thop/allreduceOp.cpp (selectImplementation: isUsingLowPrecision(hidden_size)), "
                  "tensorrt_llm/_torch/distributed/ops.py (_strategy_supports: input.numel())"},
       .verified = false,
       .caveat = "read at a commit not matched to a release: not in a release we could find; lossy: check your "
                 "model's accuracy"},
      {.id = "flashinfer.use_oneshot", .engine = "FlashInfer", .package = "flashinfer", .name = "use_oneshot",
       .kind = K::api_argument, .values = "True | False | None (its own rule)", .first = "0.2.9", .last = "0.4.1",
       .conditions = "two-shot needs token_num > world_size (asserted)",
       .what = "one-shot or two-shot in trtllm_allreduce_fusion; its own rule (None): one-shot up to 128 tokens",
       .source = {"flashinfer-ai/flashinfer", "v0.2.9, v0.3.0, v0.4.1",
                  "flashinfer/comm/trtllm_ar.py (use_oneshot = token_num <= 128; assert token_num > world_size)",
                  "v0.2.9, v0.3.0, v0.4.1"},
       .verified = true,
       .caveat = "the trtllm_comm kernels are built for SM 9, 10 and 12, but their correctness over PCIe is not "
                 "verified",
       .oneshot_max_tokens = 128},
      {.id = "flashinfer.use_oneshot", .engine = "FlashInfer", .package = "flashinfer", .name = "use_oneshot",
       .kind = K::api_argument, .values = "True | False | None (its own rule)", .first = "0.5.0",
       .conditions = "two-shot needs token_num > world_size (asserted)",
       .what = "one-shot or two-shot in trtllm_allreduce_fusion / allreduce_fusion; its own rule (None): one-shot "
               "while token_num x hidden x 2 x world x itemsize is at most 512 / 64 / 42 MiB at 2 / 4 / 8 GPUs (tuned "
               "on B200)",
       .source = {"flashinfer-ai/flashinfer", "v0.5.0rc1 (commit 4512a6c7d), v0.6.17",
                  "flashinfer/comm/trtllm_ar.py (_use_oneshot_heuristics, _should_use_oneshot), "
                  "flashinfer/comm/allreduce.py",
                  "v0.5.0rc1, v0.6.17"},
       .verified = true,
       .caveat = "the trtllm_comm kernels are built for SM 9, 10 and 12, but their correctness over PCIe is not "
                 "verified",
       .sizes = {{0, 2, 512 * MiB, 0}, {0, 4, 64 * MiB, 0}, {0, 8, 42 * MiB, 0}}},
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
