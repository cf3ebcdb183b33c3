// FlashInfer's entries of the knob catalogue (knob_data.hpp): read at flashinfer-ai/flashinfer's
// release tags (a git snapshot with tags up to v0.6.18rc7); every boundary carries its evidence,
// proven between the final tag of the first release and the newest tag of the release before
// (arbench compares release numbers without their pre-release tail, so 0.2.9rc1 is judged as 0.2.9:
// the final tag is the one that release number stands for).
#include "settings/catalogue/knob_data.hpp"

namespace arbench::knob_data {

void add_flashinfer(std::vector<Knob>& k) {
  // The PCIe IPC all-reduce is on FlashInfer's main branch from commit 299e6d11e (PR #4393,
  // 2026-08-20; main's version.txt reads 0.6.18 there), in no tag up to v0.6.18rc7 (cut from a
  // release branch, commit 3b3e688a5, that does not contain 299e6d11e), and in the documentation of
  // 0.7.1; 0.6.18 (final) and 0.7.0 were not read (the newest snapshot still ends at v0.6.18rc7).
  k.push_back(
      {.id = "flashinfer.pcie_ipc", .engine = "FlashInfer", .package = "flashinfer",
       .name = "flashinfer.comm.PcieIpcAllReduceWorkspace (flashinfer/comm/pcie_ipc_ar.py)",
       .kind = K::library_behaviour, .values = "-", .first = "0.7.1",
       .conditions = "one PCIe-only node (no NVLink, no multicast)",
       .what = "FlashInfer's CUDA-IPC all-reduce for PCIe boxes (flashinfer.comm.PcieIpcVariant, "
               "PcieIpcAllReduceWorkspace), which vLLM's VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC needs",
       .source = {"flashinfer-ai/flashinfer", "commit 299e6d11e (PR #4393, 2026-08-20); tags to v0.6.18rc7; docs 0.7.1",
                  "flashinfer/comm/pcie_ipc_ar.py; docs.flashinfer.ai (FlashInfer 0.7.1 documentation: "
                  "flashinfer.comm.PcieIpcVariant, PcieIpcAllReduceWorkspace)",
                  "docs 0.7.1"},
       .verified = false,
       .caveat = "the first release is unknown between 0.6.18 and 0.7.1: no tag up to v0.6.18rc7 has it (0.6.18 is "
                 "judged as that rc), the docs of 0.7.1 do; 0.7.0 was not read",
       .absent_through = "0.6.18rc7",
       .docs_page = "https://docs.flashinfer.ai/generated/flashinfer.comm.PcieIpcVariant.html (FlashInfer 0.7.1 "
                    "documentation)"});
  // For which capabilities trtllm_comm (the fused all-reduce's module) is built: on a GPU it is not
  // built for, 0.3.1 to 0.6.16 raise "No supported CUDA architectures found" (compilation_context.py).
  k.push_back(
      {.id = "flashinfer.comm_arch", .engine = "FlashInfer", .package = "flashinfer",
       .name = "trtllm_comm (gen_trtllm_comm_module)", .kind = K::library_behaviour, .values = "SM 10.x, as sm_100a",
       .last = "0.2.7", .conditions = "built with sm_100a flags only: no kernel for another GPU", .what = "the fused all-reduce's kernels build for 10.0a only",
       .source = {"flashinfer-ai/flashinfer", "v0.2.7", "flashinfer/comm/trtllm_ar.py (gen_trtllm_comm_module)", "v0.2.7"},
       .verified = true,
       .evidence = {{"flashinfer-ai/flashinfer", "v0.2.7", "", "flashinfer/comm/trtllm_ar.py", R"(extra_cuda_cflags=sm100a_nvcc_flags,)"}}});
  k.push_back(
      {.id = "flashinfer.comm_arch", .engine = "FlashInfer", .package = "flashinfer",
       .name = "trtllm_comm (gen_trtllm_comm_module)", .kind = K::library_behaviour,
       .values = "the GPU's own capability (0.3.0: the arch list)", .first = "0.2.8", .last = "0.3.0",
       .conditions = "built for the capability found (sm_100a flags added on 10.x)",
       .what = "the fused all-reduce's kernels build for the GPU they run on",
       .source = {"flashinfer-ai/flashinfer", "v0.2.8, v0.3.0", "flashinfer/comm/trtllm_ar.py (gen_trtllm_comm_module)",
                  "v0.2.8, v0.3.0"},
       .verified = true,
       .caveat = "built for 12.x, but the kernels' correctness over PCIe is not verified",
       .evidence = {{"flashinfer-ai/flashinfer", "v0.2.8", "v0.2.7.post1", "flashinfer/comm/trtllm_ar.py", R"(major, minor = torch\.cuda\.get_device_capability\(\))"}}});
  k.push_back(
      {.id = "flashinfer.comm_arch", .engine = "FlashInfer", .package = "flashinfer",
       .name = "trtllm_comm (gen_trtllm_comm_module)", .kind = K::library_behaviour, .values = "SM 9.x, 10.x",
       .first = "0.3.1", .last = "0.6.16",
       .conditions = "supported_major_versions=[9, 10]; on any other capability the build raises \"No supported CUDA "
                     "architectures found\"",
       .what = "the fused all-reduce (trtllm_allreduce_fusion, allreduce_fusion) cannot build for 12.x",
       .source = {"flashinfer-ai/flashinfer", "v0.3.0.post1, v0.3.1, v0.4.0, v0.6.16.post4",
                  "flashinfer/comm/trtllm_ar.py (v0.3.1), flashinfer/jit/comm.py (v0.4.0 on), "
                  "flashinfer/compilation_context.py",
                  "v0.3.1, v0.4.0, v0.6.16.post4"},
       .verified = true,
       .evidence = {{"flashinfer-ai/flashinfer", "v0.3.1", "v0.3.0.post1", "flashinfer/comm/trtllm_ar.py", R"(supported_major_versions=\[9, 10\])"}}});
  k.push_back(
      {.id = "flashinfer.comm_arch", .engine = "FlashInfer", .package = "flashinfer",
       .name = "trtllm_comm (gen_trtllm_comm_module)", .kind = K::library_behaviour, .values = "SM 9.x, 10.x, 12.x",
       .first = "0.6.17", .conditions = "supported_major_versions=[9, 10, 12] (commit 2deed6c15, PR #3903; first in "
                                        "the tag v0.6.17rc1)",
       .what = "the fused all-reduce builds for 12.x too",
       .source = {"flashinfer-ai/flashinfer", "v0.6.16.post4, v0.6.17rc1, v0.6.17", "flashinfer/jit/comm.py",
                  "v0.6.16.post4, v0.6.17"},
       .verified = true,
       .caveat = "built for 12.x, but the kernels' correctness over PCIe is not verified",
       .evidence = {{"flashinfer-ai/flashinfer", "v0.6.17", "v0.6.16.post4", "flashinfer/jit/comm.py", R"(def gen_trtllm_comm_module\(\) -> JitSpec:\n.*\n\s*supported_major_versions=\[9, 10, 12\])"}}});
  k.push_back(
      {.id = "flashinfer.use_oneshot", .engine = "FlashInfer", .package = "flashinfer", .name = "use_oneshot",
       .kind = K::api_argument, .values = "True | False (required)", .first = "0.2.7", .last = "0.2.8",
       .conditions = "two-shot needs token_num > world_size (asserted)",
       .what = "one-shot or two-shot in trtllm_allreduce_fusion: a required argument, no rule of FlashInfer's own",
       .source = {"flashinfer-ai/flashinfer", "v0.2.6.post1, v0.2.7, v0.2.8", "flashinfer/comm/trtllm_ar.py",
                  "v0.2.7, v0.2.8"},
       .verified = true,
       .evidence = {{"flashinfer-ai/flashinfer", "v0.2.7", "v0.2.6.post1", "flashinfer/comm/trtllm_ar.py", R"(use_oneshot: bool,)"}}});
  k.push_back(
      {.id = "flashinfer.use_oneshot", .engine = "FlashInfer", .package = "flashinfer", .name = "use_oneshot",
       .kind = K::api_argument, .values = "True | False | None (its own rule)", .first = "0.2.9", .last = "0.4.1",
       .conditions = "two-shot needs token_num > world_size (asserted)",
       .what = "one-shot or two-shot in trtllm_allreduce_fusion; its own rule (None): one-shot up to 128 tokens",
       .source = {"flashinfer-ai/flashinfer", "v0.2.8, v0.2.9, v0.3.0, v0.4.1",
                  "flashinfer/comm/trtllm_ar.py (use_oneshot = token_num <= 128; assert token_num > world_size)",
                  "v0.2.9, v0.3.0, v0.4.1"},
       .verified = true,
       .caveat = "the trtllm_comm kernels' correctness over PCIe is not verified",
       .oneshot_max_tokens = 128,
       .evidence = {{"flashinfer-ai/flashinfer", "v0.2.9", "v0.2.8", "flashinfer/comm/trtllm_ar.py", R"(use_oneshot: Optional\[bool\])"},
                    {"flashinfer-ai/flashinfer", "v0.2.9", "v0.2.8", "flashinfer/comm/trtllm_ar.py", R"(use_oneshot = token_num <= 128)"}}});
  // The size rule (tuned on B200), and from 0.6.0 the unified allreduce_fusion (flashinfer/comm/allreduce.py).
  const std::vector<SizeRule> b200 = {{0, 2, 512 * MiB, 0}, {0, 4, 64 * MiB, 0}, {0, 8, 42 * MiB, 0}};
  k.push_back(
      {.id = "flashinfer.use_oneshot", .engine = "FlashInfer", .package = "flashinfer", .name = "use_oneshot",
       .kind = K::api_argument, .values = "True | False | None (its own rule)", .first = "0.5.0", .last = "0.5.3",
       .conditions = "two-shot needs token_num > world_size (asserted)",
       .what = "one-shot or two-shot in trtllm_allreduce_fusion; its own rule (None): one-shot while token_num x "
               "hidden x 2 x world x itemsize is at most 512 / 64 / 42 MiB at 2 / 4 / 8 GPUs (tuned on B200)",
       .source = {"flashinfer-ai/flashinfer", "v0.4.1, v0.5.0rc1 (commit 4512a6c7d), v0.5.0, v0.5.3",
                  "flashinfer/comm/trtllm_ar.py (_use_oneshot_heuristics, _should_use_oneshot)", "v0.5.0, v0.5.3"},
       .verified = true,
       .caveat = "the trtllm_comm kernels' correctness over PCIe is not verified",
       .sizes = b200,
       .evidence = {{"flashinfer-ai/flashinfer", "v0.5.0", "v0.4.1", "flashinfer/comm/trtllm_ar.py", R"(def _should_use_oneshot\()"}}});
  k.push_back(
      {.id = "flashinfer.use_oneshot", .engine = "FlashInfer", .package = "flashinfer", .name = "use_oneshot",
       .kind = K::api_argument, .values = "True | False | None (its own rule)", .first = "0.6.0",
       .conditions = "two-shot needs token_num > world_size (asserted)",
       .what = "one-shot or two-shot in trtllm_allreduce_fusion and allreduce_fusion (flashinfer/comm/allreduce.py, "
               "from 0.6.0); its own rule (None): one-shot while token_num x hidden x 2 x world x itemsize is at most "
               "512 / 64 / 42 MiB at 2 / 4 / 8 GPUs (tuned on B200)",
       .source = {"flashinfer-ai/flashinfer", "v0.5.3, v0.6.0, v0.6.17",
                  "flashinfer/comm/trtllm_ar.py (_should_use_oneshot), flashinfer/comm/allreduce.py (allreduce_fusion)",
                  "v0.6.0, v0.6.17"},
       .verified = true,
       .caveat = "the trtllm_comm kernels' correctness over PCIe is not verified",
       .sizes = b200,
       .evidence = {{"flashinfer-ai/flashinfer", "v0.6.0", "v0.5.3", "flashinfer/comm/allreduce.py", R"(^def allreduce_fusion\()"}}});
}

}  // namespace arbench::knob_data
