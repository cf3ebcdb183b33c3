// vLLM's entries of the knob catalogue (knob_data.hpp). vllm-project/vllm could not be cloned here
// (its snapshot is over the size the tools bring), so each entry names the versioned docs page
// (docs.vllm.ai/en/vX) it rests on; scripts/check_catalogue.py reports them unprovable by clone.
#include "settings/catalogue/knob_data.hpp"

namespace arbench::knob_data {

namespace {
// vLLM's default one-shot table of the fusion (read in the docs of 0.15.0 and 0.16.0).
const std::vector<SizeRule> kFusionOneShot = {{90, 2, 32 * MiB, 0},  {90, 4, 2 * MiB, 0},  {90, 8, MiB / 2, 0},
                                              {100, 2, 32 * MiB, 0}, {100, 4, 4 * MiB, 0}, {100, 8, 1 * MiB, 0}};
constexpr std::string_view kFuseName = "pass_config.fuse_allreduce_rms, fi_allreduce_fusion_max_size_mb";
constexpr std::string_view kFuseConditions =
    "default sizes for capability 90 and 100 only; FlashInfer kernel (built for 12.x from FlashInfer 0.6.17 only)";
constexpr std::string_view kFuseWhat =
    "the all-reduce + RMSNorm fusion pass (FlashInfer's kernel); one-shot up to its one-shot table's size, one-shot "
    "always where the table has no entry (12.x)";
constexpr std::string_view kFusePaste =
    "--compilation-config '{\"pass_config\": {\"fuse_allreduce_rms\": true, \"fi_allreduce_fusion_max_size_mb\": {mib}}}'";
}  // namespace

void add_vllm(std::vector<Knob>& k) {
  k.push_back(
      {.id = "vllm.custom_ar", .engine = "vLLM", .package = "vllm", .name = "--disable-custom-all-reduce",
       .kind = K::flag, .values = "flag (default: custom all-reduce on)",
       .conditions = "2, 4, 6 or 8 GPUs; more than two only when every pair is NVLink-connected",
       .what = "vLLM's custom all-reduce: off on more than two GPUs not all NVLink-connected",
       .source = {"vllm-project/vllm", "docs.vllm.ai v0.9.2 and stable; index commit 00d618aab604",
                  "vllm/distributed/device_communicators/custom_all_reduce.py", "docs.vllm.ai v0.9.2"},
       .verified = true,
       .docs_page = "https://docs.vllm.ai/en/v0.9.2/api/vllm/distributed/device_communicators/custom_all_reduce.html"});
  k.push_back(
      {.id = "vllm.custom_ar_shots", .engine = "vLLM", .package = "vllm", .name = "(none: not settable)",
       .kind = K::library_behaviour, .values = "-",
       .conditions = "2 GPUs: one-stage always, up to its 8 MiB maximum (NCCL above); 4/8 NVLink GPUs: one-stage "
                     "below 512/256 KiB (the VLLM_CUSTOM_ALLREDUCE_ALGO of some forks is not upstream)",
       .what = "which custom kernel vLLM runs: at two GPUs always its one-stage (one-shot) kernel; no upstream "
               "variable switches it",
       .source = {"vllm-project/vllm", "index commit c9eabec7d862", "csrc/custom_all_reduce.cuh (REDUCE_CASE)"},
       .verified = false, .caveat = "read at a commit not matched to a release: not in a release we could find",
       .sizes = {{0, 2, 8 * MiB, 0}, {0, 4, 512 * KiB - 1, 0}, {0, 8, 256 * KiB - 1, 0}},
       .docs_page = "https://docs.vllm.ai/en/v0.9.2/api/vllm/distributed/device_communicators/custom_all_reduce.html"});
  k.push_back(
      {.id = "vllm.nccl_symm", .engine = "vLLM", .package = "vllm", .name = "VLLM_USE_NCCL_SYMM_MEM",
       .kind = K::env_var, .values = "0 | 1 (default 0), with NCCL_CUMEM_ENABLE=1", .first = "0.11.0",
       .last = "0.16.0", .conditions = "4 or 8 GPUs; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL on symmetric memory at or above 2 MiB on 4 GPUs and 1 MiB on 8",
       .source = {"vllm-project/vllm", "index commit b250ac3dd5ef; docs.vllm.ai v0.11.0 (pynccl_allocator)",
                  "vllm/distributed/device_communicators/all_reduce_utils.py, vllm/envs.py", "docs.vllm.ai v0.11.0"},
       .verified = false,
       .caveat = "the last release with this size rule is not pinned: PR #33839 (merged 2026-02-26) replaced it, "
                 "taken here as after 0.16",
       .sizes = {{0, 4, 0, 2 * MiB}, {0, 8, 0, 1 * MiB}},
       .docs_page = "https://docs.vllm.ai/en/v0.11.0/api/vllm/distributed/device_communicators/all_reduce_utils.html"});
  k.push_back(
      {.id = "vllm.nccl_symm", .engine = "vLLM", .package = "vllm", .name = "VLLM_USE_NCCL_SYMM_MEM",
       .kind = K::env_var, .values = "0 | 1 (default 0), with NCCL_CUMEM_ENABLE=1", .first = "0.17.0",
       .conditions = "4 or 8 GPUs; NCCL's symmetric kernels (NVLink-only from NCCL 2.29.2)",
       .what = "NCCL on symmetric memory at or below 16 KiB, and at or above 512 KiB on 4 GPUs, 128 KiB on 8",
       .source = {"vllm-project/vllm", "PR #33839 (commit 31fb6f43, 2026-02-26); index commit 00d618aab604",
                  "vllm/distributed/device_communicators/all_reduce_utils.py (should_nccl_symm_mem_allreduce)"},
       .verified = false,
       .caveat = "the first release with this size rule is not pinned (PR #33839 merged 2026-02-26; taken here as "
                 "0.17.0)",
       .sizes = {{0, 4, 16 * KiB, 512 * KiB}, {0, 8, 16 * KiB, 128 * KiB}},
       .docs_page = "https://docs.vllm.ai/en/v0.17.1/api/vllm/distributed/device_communicators/all_reduce_utils/"});
  k.push_back(
      {.id = "vllm.torch_symm", .engine = "vLLM", .package = "vllm", .name = "VLLM_ALLREDUCE_USE_SYMM_MEM",
       .kind = K::env_var, .values = "0 | 1", .first = "0.10.2",
       .conditions = "capability 9.0 or 10.0 (size tables); 10.3 too where PR #37756 is in (its release is unknown)",
       .what = "torch symmetric-memory all-reduce; no size table, so off, on other capabilities",
       .source = {"vllm-project/vllm", "docs.vllm.ai v0.10.2 (symm_mem.py); index commit b250ac3dd5ef; PR #37756",
                  "vllm/distributed/device_communicators/all_reduce_utils.py (SYMM_MEM_ALL_REDUCE_MAX_SIZES), symm_mem.py",
                  "docs.vllm.ai v0.10.2"},
       .verified = true,
       .caveat = "PR #37756 added capability 10.3 to SYMM_MEM_ALL_REDUCE_MAX_SIZES and to the fusion tables; the "
                 "release it is first in is unknown (not read)",
       .docs_page = "https://docs.vllm.ai/en/v0.10.2/api/vllm/distributed/device_communicators/symm_mem.html"});
  // The fusion pass came with PR #20691 (after v0.9.2; the docs of 0.10.0 are the earliest that show
  // it); its switch was renamed by PR #29646 (the docs of 0.12.0 have the new name); PR #34299
  // switched it on by default at -O2 on 9.0/10.x with TP > 1 (the docs of 0.14.1 still show it off,
  // those of 0.18.2 on; the releases between were not read).
  k.push_back(
      {.id = "vllm.fusion", .engine = "vLLM", .package = "vllm", .name = "pass_config.enable_fi_allreduce_fusion",
       .kind = K::config_key, .values = "true | false (default false)", .first = "0.10.0", .last = "0.11.2",
       .conditions = "default sizes for capability 90 and 100 only; FlashInfer kernel",
       .what = "the all-reduce + RMSNorm fusion pass (FlashInfer's kernel), switched on by its name before the "
               "rename",
       .source = {"vllm-project/vllm", "PR #20691 (the pass, after v0.9.2); docs.vllm.ai v0.10.0 (collective_fusion); "
                                       "PR #29646 (the rename); docs.vllm.ai v0.12.0 (the new name)",
                  "vllm/compilation/collective_fusion.py, vllm/config/compilation.py (PassConfig)",
                  "docs.vllm.ai v0.10.0, v0.12.0"},
       .verified = false,
       .caveat = "which size key 0.11.x takes (fi_allreduce_fusion_max_token_num, or fi_allreduce_fusion_max_size_mb "
                 "after PR #24248) and its one-shot table are not pinned to a release: the paste sets only the "
                 "switch, and the kernel choice is judged by the table of 0.15.0's and 0.16.0's docs",
       .sizes = kFusionOneShot,
       .paste = "--compilation-config '{\"pass_config\": {\"enable_fi_allreduce_fusion\": true}}'",
       .docs_page = "https://docs.vllm.ai/en/v0.10.0/api/vllm/compilation/collective_fusion.html",
       .default_value = D::off});
  const KnobSource fuse_source = {
      "vllm-project/vllm", "docs.vllm.ai v0.12.0, v0.14.1, v0.16.0, v0.18.2; PR #34299; commit 889b02f9497f",
      "vllm/config/vllm.py (fuse_allreduce_rms), vllm/compilation/passes/fusion/allreduce_rms_fusion.py "
      "(_FI_ALLREDUCE_ONE_SHOT_MAX_SIZES_MB), docs/design/fusions.md",
      "docs.vllm.ai v0.12.0, v0.14.1, v0.15.0, v0.16.0, v0.18.2"};
  k.push_back({.id = "vllm.fusion", .engine = "vLLM", .package = "vllm", .name = kFuseName, .kind = K::config_key,
               .values = "true | false (default false)", .first = "0.12.0", .last = "0.14.1",
               .conditions = kFuseConditions, .what = kFuseWhat, .source = fuse_source, .verified = true,
               .caveat = "the one-shot table read in the docs of 0.15.0 and 0.16.0; FlashInfer's kernel on SM12x over "
                         "PCIe: correctness not verified",
               .sizes = kFusionOneShot, .paste = kFusePaste,
               .docs_page = "https://docs.vllm.ai/en/v0.14.1/design/fusions/", .default_value = D::off});
  k.push_back({.id = "vllm.fusion", .engine = "vLLM", .package = "vllm", .name = kFuseName, .kind = K::config_key,
               .values = "true | false (default: unknown in these releases)", .first = "0.15.0", .last = "0.18.1",
               .conditions = kFuseConditions, .what = kFuseWhat, .source = fuse_source, .verified = true,
               .caveat = "whether the fusion is on by default in 0.15.0 to 0.18.1 is unknown (PR #34299 turned it on; "
                         "the docs of 0.14.1 show it off, those of 0.18.2 on); FlashInfer's kernel on SM12x over PCIe: "
                         "correctness not verified",
               .sizes = kFusionOneShot, .paste = kFusePaste,
               .docs_page = "https://docs.vllm.ai/en/v0.16.0/api/vllm/compilation/passes/fusion/allreduce_rms_fusion/",
               .default_value = D::unknown});
  k.push_back({.id = "vllm.fusion", .engine = "vLLM", .package = "vllm", .name = kFuseName, .kind = K::config_key,
               .values = "true | false (default true at -O2 on 9.0/10.x with TP > 1)", .first = "0.18.2",
               .conditions = kFuseConditions, .what = kFuseWhat, .source = fuse_source, .verified = true,
               .caveat = "on by default at -O2 on Hopper/Blackwell (9.0/10.x) with TP > 1; FlashInfer's kernel on "
                         "SM12x over PCIe: correctness not verified",
               .sizes = kFusionOneShot, .paste = kFusePaste,
               .docs_page = "https://docs.vllm.ai/en/v0.18.2/design/fusions/", .default_value = D::on});
  k.push_back(
      {.id = "vllm.fi_pcie_ipc", .engine = "vLLM", .package = "vllm",
       .name = "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC", .kind = K::env_var, .values = "0 | 1 (opt-in)",
       .first = "0.32.0",
       .conditions = "2, 4 or 8 GPUs over PCIe; bf16/fp16; FlashInfer with flashinfer.comm's PCIe IPC all-reduce "
                     "(pcie_ipc_ar.py), else vLLM falls back to another all-reduce backend (its custom all-reduce at "
                     "2 GPUs, else NCCL); needs CUDA-graph capture sizes (none with --enforce-eager); refused under "
                     "DBO (micro-batching)",
       .what = "FlashInfer's PCIe CUDA-IPC all-reduce",
       .source = {"vllm-project/vllm", "PR #53576 (merged); docs.vllm.ai v0.23.0 (absent), v0.32.0; index commit "
                                       "fcf933f40ae0",
                  "vllm/distributed/device_communicators/flashinfer_pcie_ipc_all_reduce.py, vllm/envs.py",
                  "docs.vllm.ai v0.32.0"},
       .verified = false,
       .caveat = "the first release is unknown: the docs of 0.23.0 do not list the module, those of 0.32.0 do; "
                 "0.24.0 to 0.31.x were not read. FlashInfer's kernel (it tunes itself at start), not arbench's",
       .absent_through = "0.23.0",
       .docs_page = "https://docs.vllm.ai/en/v0.32.0/api/vllm/distributed/device_communicators/"});
}

}  // namespace arbench::knob_data
