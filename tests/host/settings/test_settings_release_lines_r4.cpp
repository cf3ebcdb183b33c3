// The twelve settings lines issue 58 found wrong or unsourced (round four), each stated here with
// the release boundary it turns on, or the "unknown" the line prints where the boundary could not be
// read; bench/settings/catalogue/knobs_*.cpp carries the evidence (scripts/check_catalogue.py).
#include <gtest/gtest.h>

#include <map>

#include "settings/catalogue/knobs.hpp"
#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using namespace testing;  // settings_fixture.hpp: pcie8, cached_settings, contains, ...

// 1. FlashInfer builds its fused all-reduce (trtllm_comm) for SM 9 and 10 only from v0.3.1 to
//    v0.6.16 (12.x raises "No supported CUDA architectures found"); 12 from v0.6.17 (first tag
//    v0.6.17rc1). FlashInfer's use_oneshot, vLLM's and SGLang's fusion follow the FlashInfer given.
TEST(ReleaseLines, FlashInferFusedAllReduceBuildsFor12From0617) {
  const FixtureSettings& old = pcie8({{"flashinfer", "0.6.16"}, {"vllm", "0.16.0"}, {"sglang", "0.5.23"}});
  for (int w : {2, 8}) {
    for (const char* id : {"flashinfer.use_oneshot", "vllm.fusion", "sglang.fusion"}) {
      const EngineSetting* s = old.setting(w, id);
      ASSERT_NE(s, nullptr) << id;
      EXPECT_EQ(s->status, SettingStatus::gated) << id << ": " << s->why;
      EXPECT_EQ(s->paste, "") << id;
      EXPECT_TRUE(contains(s->why, "FlashInfer 0.6.16 (given) builds its fused all-reduce (trtllm_comm) for SM 9.x, "
                                   "10.x only (supported_major_versions=[9, 10]; on any other capability the build "
                                   "raises \"No supported CUDA architectures found\"), not for capability 12.0; "
                                   "FlashInfer 0.6.17 and later build it for capability 12.0")) << s->why;
    }
  }
  const EngineSetting* now = pcie8({{"flashinfer", "0.6.17"}}).setting(2, "flashinfer.use_oneshot");
  EXPECT_EQ(now->status, SettingStatus::try_it) << now->why;  // 12.x: correctness over PCIe not verified
  EXPECT_NE(now->paste, "");
  EXPECT_FALSE(contains(now->why, "No supported CUDA architectures")) << now->why;
  // No FlashInfer given: unknown which one the engine installs, and the line says what to give.
  const EngineSetting* unknown = pcie8().setting(2, "flashinfer.use_oneshot");
  EXPECT_EQ(unknown->status, SettingStatus::try_it);
  EXPECT_TRUE(contains(unknown->why, "FlashInfer's fused all-reduce (trtllm_comm) cannot build for capability 12.0 in "
                                     "FlashInfer up to 0.2.7 (built for SM 10.x, as sm_100a), 0.3.1 to 0.6.16 (built "
                                     "for SM 9.x, 10.x); from 0.6.17 it can; which FlashInfer your engine installs is "
                                     "not known here: give --engine flashinfer=VERSION")) << unknown->why;
  // 0.2.8 to 0.3.0 build for the GPU found; on 10.0 (B200) no release is gated.
  EXPECT_NE(pcie8({{"flashinfer", "0.3.0"}}).setting(2, "flashinfer.use_oneshot")->status, SettingStatus::gated);
  EXPECT_FALSE(contains(cached_settings("nvlink-sm100.json").setting(2, "flashinfer.use_oneshot")->why, "trtllm_comm"));
}

// 2. vLLM at 2 GPUs always runs its one-stage kernel, up to 8 MiB: the custom all-reduce line is
//    judged on that kernel (`vllm-custom` where measured, else arbench's oneshot-pull, named), not on
//    the best of oneshot/twoshot; SGLang's first kernel (and SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0) too.
TEST(ReleaseLines, TwoGpuCustomAllReduceJudgedOnTheOneStageKernel) {
  const EngineSetting* v = pcie8({{"vllm", "0.16.0"}}).setting(2, "vllm.custom_ar");
  EXPECT_EQ(v->status, SettingStatus::keep);
  EXPECT_EQ(v->value, "on (vLLM's default): beats NCCL up to 64 KiB");  // oneshot-pull loses from 128 KiB
  EXPECT_TRUE(contains(v->why, "arbench's oneshot-pull (the one-stage schedule the engine runs at 2 GPUs, up to 8 MiB) "
                               "beats NCCL up to 64 KiB; it is slower at 7 of 14 sizes up to 8 MiB")) << v->why;
  EXPECT_TRUE(contains(v->why, "add `vllm-custom` to the run")) << v->why;
  ASSERT_EQ(v->evidence.size(), 2u);
  EXPECT_EQ(v->evidence[0].chosen, "oneshot-pull");
  EXPECT_EQ(v->evidence[1].size, 128u * 1024);
  EXPECT_TRUE(v->evidence[1].loses);
  for (const char* sglang : {"0.5.11", "0.5.12"}) {
    const EngineSetting* s = pcie8({{"sglang", sglang}}).setting(2, "sglang.custom_ar");
    EXPECT_TRUE(contains(s->why, "judged on the kernel SGLang's first kernel runs here")) << sglang << ": " << s->why;
    EXPECT_EQ(s->evidence.size(), 2u) << sglang;
  }
  EXPECT_EQ(pcie8({{"sglang", "0.5.12"}}).setting(2, "sglang.custom_ar")->value,
            "the first custom kernel: it beats NCCL up to 64 KiB");
  // With vLLM's own kernel measured, the line cites it.
  const EngineSetting* peer = cached_settings("peers-pcie8.json", {{"vllm", "0.16.0"}}).setting(2, "vllm.custom_ar");
  EXPECT_TRUE(contains(peer->why, "measured `vllm-custom`, the kernel itself")) << peer->why;
}

// 3. vLLM's fusion is on by default at -O2 on 9.0/10.x with TP > 1 (PR #34299; docs of 0.18.2: on,
//    of 0.14.1: off, 0.15.0 to 0.18.1 not read). Where its kernel loses, "off" means setting it false.
TEST(ReleaseLines, VllmFusionOnByDefaultIsSetFalseWhereItLoses) {
  const std::string off = "--compilation-config '{\"pass_config\": {\"fuse_allreduce_rms\": false}}'";
  const EngineSetting* on = cached_settings("nccl-default-wins.json", {{"vllm", "0.18.2"}}, "", "10.0").setting(2, "vllm.fusion");
  EXPECT_EQ(on->status, SettingStatus::set) << on->why;
  EXPECT_EQ(on->paste, off);
  EXPECT_TRUE(contains(on->why, "this release switches it on by default at -O2 with TP > 1 on capability 10.0, so it "
                                "must be set false")) << on->why;
  bool in_command = false;  // `set`: in the command to paste
  for (const std::string& line : cached_settings("nccl-default-wins.json", {{"vllm", "0.18.2"}}, "", "10.0").engine(2, "vLLM").command)
    in_command = in_command || contains(line, "\"fuse_allreduce_rms\": false");
  EXPECT_TRUE(in_command);
  const EngineSetting* unknown =
      cached_settings("nccl-default-wins.json", {{"vllm", "0.16.0"}}, "", "10.0").setting(2, "vllm.fusion");
  EXPECT_EQ(unknown->status, SettingStatus::try_it);
  EXPECT_EQ(unknown->paste, off);
  EXPECT_TRUE(contains(unknown->why, "whether this release switches it on by default is unknown")) << unknown->why;
  const EngineSetting* default_off =
      cached_settings("nccl-default-wins.json", {{"vllm", "0.14.1"}}, "", "10.0").setting(2, "vllm.fusion");
  EXPECT_EQ(default_off->status, SettingStatus::keep);
  EXPECT_EQ(default_off->paste, "");
  // On 12.x the default does not apply (Hopper/Blackwell data-centre parts): nothing to set false.
  EXPECT_EQ(cached_settings("nccl-default-wins.json", {{"vllm", "0.18.2"}, {"flashinfer", "0.6.17"}}).setting(2, "vllm.fusion")->paste,
            "");
}

// 4. NCCL's example plugin reads NCCL_TUNER_CONFIG_FILE from v2.27.5-1 and crashes on the first
//    matching row up to v2.29.7-1 (float** indexing); safe from v2.30.3-1.
TEST(ReleaseLines, NcclExamplePluginCrashRangeStartsAt2275) {
  const EngineSetting* none = pcie8({}, "2.27.3").setting(8, "nccl.example_plugin");
  EXPECT_EQ(none->status, SettingStatus::gated);
  EXPECT_TRUE(contains(none->why, "has no NCCL_TUNER_CONFIG_FILE (its example plugin reads it from 2.27.5)")) << none->why;
  for (const char* crash : {"2.27.5", "2.28.9", "2.29.7"}) {
    const EngineSetting* s = pcie8({}, crash).setting(8, "nccl.example_plugin");
    EXPECT_EQ(s->status, SettingStatus::gated) << crash;
    EXPECT_EQ(s->paste, "") << crash;
    EXPECT_TRUE(contains(s->why, "crashes on the first matching row up to 2.29.7; it is safe from 2.30.3")) << s->why;
    EXPECT_TRUE(contains(s->versions, "NCCL_TUNER_CONFIG_FILE is read from 2.27.5, safely from 2.30.3")) << s->versions;
  }
  EXPECT_EQ(pcie8({}, "2.30.3").setting(8, "nccl.example_plugin")->status, SettingStatus::try_it);
  const std::string conf = read_text(fixture_path("golden/pcie8-crossovers.conf"));
  EXPECT_TRUE(contains(conf, "the 2.27.5 to 2.29 one crashes on")) << conf.substr(0, 400);
}

// 5. FlashInfer's PCIe IPC all-reduce (flashinfer.comm.PcieIpcAllReduceWorkspace) is in 0.7.1's
//    documentation and in no tag up to v0.6.18rc7; 0.7.0 was not read: "unknown".
TEST(ReleaseLines, FlashInferPcieIpcIsIn071) {
  const EngineSetting* has = pcie8({{"vllm", "0.32.0"}, {"flashinfer", "0.7.1"}}).setting(2, "vllm.fi_pcie_ipc");
  EXPECT_EQ(has->status, SettingStatus::try_it);
  EXPECT_FALSE(contains(has->why, "no FlashInfer release")) << has->why;
  EXPECT_TRUE(contains(has->why, "which the FlashInfer given has")) << has->why;
  const EngineSetting* lacks = pcie8({{"vllm", "0.32.0"}, {"flashinfer", "0.6.18"}}).setting(2, "vllm.fi_pcie_ipc");
  EXPECT_EQ(lacks->status, SettingStatus::gated);
  EXPECT_TRUE(contains(lacks->why, "in no tag up to 0.6.18rc7, in the documentation of 0.7.1")) << lacks->why;
  const EngineSetting* between = pcie8({{"vllm", "0.32.0"}, {"flashinfer", "0.7.0"}}).setting(2, "vllm.fi_pcie_ipc");
  EXPECT_EQ(between->status, SettingStatus::try_it);
  EXPECT_TRUE(contains(between->versions, "FlashInfer 0.7.0 (given): unknown whether it has")) << between->versions;
}

// 6. VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC: absent from the docs of 0.23.0, present in those of
//    0.32.0; 0.24.0 to 0.31.x not read: the line says "unknown" for them, and gates none.
TEST(ReleaseLines, VllmPcieIpcFirstReleaseIsUnknownBetween023And032) {
  const EngineSetting* old = pcie8({{"vllm", "0.23.0"}}).setting(2, "vllm.fi_pcie_ipc");
  EXPECT_EQ(old->status, SettingStatus::gated);
  for (const char* between : {"0.24.0", "0.30.0", "0.31.0"}) {
    const EngineSetting* s = pcie8({{"vllm", between}}).setting(2, "vllm.fi_pcie_ipc");
    EXPECT_EQ(s->status, SettingStatus::try_it) << between << ": " << s->why;
    EXPECT_TRUE(contains(s->why, "unknown whether the vLLM given has it")) << s->why;
    EXPECT_TRUE(contains(s->why, "absent up to 0.23.0, present in 0.32.0")) << s->why;
  }
  EXPECT_FALSE(contains(pcie8({{"vllm", "0.32.0"}}).setting(2, "vllm.fi_pcie_ipc")->why, "unknown whether the vLLM"));
}

// 7. The same entry: the class is in flashinfer.comm (pcie_ipc_ar.py), not a module flashinfer.pcie_ipc;
//    vLLM falls back to another backend (its custom all-reduce at 2 GPUs); it needs CUDA-graph capture
//    sizes (none with --enforce-eager) and is refused under DBO.
TEST(ReleaseLines, VllmPcieIpcSaysItsModuleFallbackAndConditions) {
  const Knob& k = knob("vllm.fi_pcie_ipc");
  EXPECT_FALSE(contains(std::string(k.conditions), "flashinfer.pcie_ipc"));
  EXPECT_TRUE(contains(std::string(k.conditions), "flashinfer.comm's PCIe IPC all-reduce (pcie_ipc_ar.py)"));
  const EngineSetting* s = pcie8({{"vllm", "0.32.0"}}).setting(2, "vllm.fi_pcie_ipc");
  EXPECT_FALSE(contains(s->why, "else vLLM runs NCCL")) << s->why;
  EXPECT_TRUE(contains(s->why, "else vLLM falls back to another all-reduce backend (its custom all-reduce at 2 GPUs, "
                               "else NCCL); it needs CUDA-graph capture sizes (none with --enforce-eager) and is "
                               "refused under DBO (micro-batching)")) << s->why;
}

// 8. flashinfer.use_oneshot is a required argument of trtllm_allreduce_fusion in v0.2.7 and v0.2.8
//    (absent in v0.2.6.post1); Optional with FlashInfer's own rule from v0.2.9.
TEST(ReleaseLines, FlashInferUseOneshotFirstIn027) {
  const EngineSetting* s = cached_settings("nvlink-sm100.json", {{"flashinfer", "0.2.7"}}).setting(2, "flashinfer.use_oneshot");
  EXPECT_NE(s->status, SettingStatus::gated) << s->why;
  EXPECT_TRUE(contains(s->versions, "holds for 0.2.7 to 0.2.8")) << s->versions;
  const EngineSetting* before = cached_settings("nvlink-sm100.json", {{"flashinfer", "0.2.6"}}).setting(2, "flashinfer.use_oneshot");
  EXPECT_EQ(before->status, SettingStatus::gated);
  EXPECT_TRUE(contains(before->versions, "use_oneshot first appears in 0.2.7")) << before->versions;
  EXPECT_TRUE(contains(cached_settings("nvlink-sm100.json", {{"flashinfer", "0.2.9"}}).setting(2, "flashinfer.use_oneshot")->why,
                       "one-shot up to 128 tokens"));
}

// 9. pass_config.enable_fi_allreduce_fusion came with PR #20691 after v0.9.2 (docs of 0.10.0 are the
//    earliest that show it): vLLM 0.9.2 has no fusion to switch on.
TEST(ReleaseLines, VllmFusionFirstIn0100) {
  const EngineSetting* old = cached_settings("nvlink-sm100.json", {{"vllm", "0.9.2"}}).setting(2, "vllm.fusion");
  EXPECT_EQ(old->status, SettingStatus::gated) << old->why;
  EXPECT_EQ(old->paste, "");
  EXPECT_TRUE(contains(old->versions, "first appears in 0.10.0")) << old->versions;
  const EngineSetting* now = cached_settings("nvlink-sm100.json", {{"vllm", "0.10.0"}}).setting(2, "vllm.fusion");
  EXPECT_NE(now->status, SettingStatus::gated);
  EXPECT_TRUE(contains(now->paste, "enable_fi_allreduce_fusion")) << now->paste;
}

// 10. torch symmetric memory: PR #37756 added capability 10.3 to SYMM_MEM_ALL_REDUCE_MAX_SIZES, in a
//     release not pinned: on 10.3 the line says "unknown", not "no size table".
TEST(ReleaseLines, VllmTorchSymmMemOn103IsUnknown) {
  const EngineSetting* s = cached_settings("nvlink-sm100.json", {{"vllm", "0.18.2"}}, "", "10.3").setting(8, "vllm.torch_symm");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->status, SettingStatus::gated);
  EXPECT_EQ(s->value, "unknown");
  EXPECT_TRUE(contains(s->why, "PR #37756 added capability 10.3")) << s->why;
  const EngineSetting* g = pcie8({{"vllm", "0.18.2"}}).setting(8, "vllm.torch_symm");
  EXPECT_EQ(g->status, SettingStatus::gated);
  EXPECT_TRUE(contains(g->why, "no size table for capability 12.0")) << g->why;
}

// 11. allreduce_fusion (flashinfer/comm/allreduce.py) first exists in v0.6.0 (absent in v0.5.3): the
//     0.5.x entry names trtllm_allreduce_fusion only.
TEST(ReleaseLines, FlashInferAllreduceFusionFrom060) {
  StackVersions s;
  s.engines["flashinfer"] = *parse_version("0.5.3");
  const KnobFor five = knob_for("flashinfer.use_oneshot", s, std::nullopt);
  EXPECT_FALSE(contains(std::string(five.entry->what), "allreduce_fusion (")) << five.entry->what;
  EXPECT_FALSE(contains(std::string(five.entry->source.files), "allreduce.py")) << five.entry->source.files;
  EXPECT_TRUE(contains(five.versions, "holds for 0.5.0 to 0.5.3")) << five.versions;
  s.engines["flashinfer"] = *parse_version("0.6.0");
  const KnobFor six = knob_for("flashinfer.use_oneshot", s, std::nullopt);
  EXPECT_TRUE(contains(std::string(six.entry->what), "allreduce_fusion (flashinfer/comm/allreduce.py, from 0.6.0)"));
}

// 12. TensorRT-LLM LOWPRECISION: one copy of allreduceOp.cpp compares the hidden size (never
//     engages), another the message size (engages from 2,097,152 elements); the release split is
//     unknown, and the line says so for every release.
TEST(ReleaseLines, TensorRtLlmLowPrecisionReleaseSplitIsUnknown) {
  for (const char* v : {"0.20.0", "1.2.1"}) {
    const EngineSetting* lp = pcie8({{"tensorrt_llm", v}}).setting(8, "trtllm.lowprecision");
    EXPECT_EQ(lp->status, SettingStatus::gated) << v;
    EXPECT_EQ(lp->value, "unknown: NCCL, or FP8 from 2,097,152 elements");
    EXPECT_FALSE(contains(lp->why, "never engages and the all-reduce runs NCCL; nothing")) << lp->why;
    EXPECT_TRUE(contains(lp->why, "unknown for which releases it compares the message with that count")) << lp->why;
  }
  EXPECT_TRUE(contains(std::string(knob("trtllm.lowprecision").caveat), "unknown which releases"));
}

}  // namespace
}  // namespace arbench
