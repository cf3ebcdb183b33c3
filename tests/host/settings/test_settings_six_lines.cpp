// The six settings lines issue 40 found wrong, each stated here by hand (not read back from the
// program), on the committed fixtures (2, 4 and 8 GPUs; make_fixtures.py) and for given versions:
// vLLM's NCCL symmetric memory (its size rule per release, NCCL 2.29.2+ over PCIe), SGLang's
// custom all-reduce on more than two PCIe GPUs, vLLM's two-GPU custom all-reduce (no
// VLLM_CUSTOM_ALLREDUCE_ALGO), TensorRT-LLM over PCIe and LOWPRECISION (as issue 50 corrected them),
// FlashInfer's T, and vLLM's fusion judged on the kernel it picks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>

#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using testing::FixtureSettings;
using testing::fixture_path;
using testing::read_text;
using testing::settings_of;

FixtureSettings pcie8(const std::map<std::string, std::string>& engines = {}, const std::string& nccl = "") {
  SettingsOptions opt = testing::fixed_paths();
  for (const auto& [k, v] : engines) opt.stack.engines[k] = *parse_version(v);
  if (!nccl.empty()) opt.stack.nccl = parse_version(nccl);
  opt.stack.source = "test";
  return settings_of(fixture_path("pcie8-crossovers.json"), opt);
}

using testing::contains;

TEST(SixLines, VllmNcclSymmMemFollowsItsReleasesSizeRule) {
  // vLLM from 0.17.0 (PR #33839): at or below 16 KiB and at or above 128 KiB on 8 GPUs. The
  // fixture has nccl-symm 15% slower below 1 MiB: 8 of 13 such sizes lose, so no `set`.
  const FixtureSettings now = pcie8({{"vllm", "0.17.0"}});
  const EngineSetting* s8 = now.setting(8, "vllm.nccl_symm");
  EXPECT_EQ(s8->status, SettingStatus::keep);
  EXPECT_EQ(s8->paste, "");
  EXPECT_EQ(s8->why, "NCCL on symmetric memory is faster than on plain buffers at 5 and slower at 8 of 13 sizes "
                     "measured at or below 16 KiB and at or above 128 KiB, where vLLM uses it");
  EXPECT_TRUE(contains(s8->versions, "for vLLM 0.17.0 (given): holds for 0.17.0 and later")) << s8->versions;
  EXPECT_EQ(now.setting(4, "vllm.nccl_symm")->status, SettingStatus::keep);
  // Without versions the newest rule is used, and the line says what it was checked against.
  const FixtureSettings none = settings_of(fixture_path("pcie8-crossovers.json"));
  EXPECT_EQ(none.setting(8, "vllm.nccl_symm")->status, SettingStatus::keep);
  EXPECT_TRUE(contains(none.setting(8, "vllm.nccl_symm")->versions, "checked against vLLM 0.17.0 and later"));
  for (const std::string& line : none.engine(8, "vLLM").command) EXPECT_FALSE(contains(line, "VLLM_USE_NCCL_SYMM_MEM"));
  // vLLM 0.16.0 (the old rule: at or above 1 MiB on 8, 2 MiB on 4): nccl-symm wins at every such
  // size; the release boundary is not pinned, so `try`, never in the command.
  const FixtureSettings old = pcie8({{"vllm", "0.16.0"}});
  const EngineSetting* o8 = old.setting(8, "vllm.nccl_symm");
  EXPECT_EQ(o8->status, SettingStatus::try_it);
  EXPECT_EQ(o8->paste, "VLLM_USE_NCCL_SYMM_MEM=1 NCCL_CUMEM_ENABLE=1");
  EXPECT_EQ(o8->why, "NCCL on symmetric memory is faster than on plain buffers at 5 and slower at 0 of 5 sizes "
                     "measured at or above 1 MiB, where vLLM uses it");
  EXPECT_TRUE(contains(old.setting(4, "vllm.nccl_symm")->why, "of 4 sizes measured at or above 2 MiB"));
  // 2 GPUs: vLLM never uses it.
  EXPECT_EQ(now.setting(2, "vllm.nccl_symm")->status, SettingStatus::gated);
  EXPECT_EQ(now.setting(2, "vllm.nccl_symm")->why, "vLLM uses NCCL symmetric memory on 4 or 8 GPUs only");
  // A vLLM before the variable: gated, saying so.
  const FixtureSettings before = pcie8({{"vllm", "0.10.0"}});
  const EngineSetting* absent = before.setting(8, "vllm.nccl_symm");
  EXPECT_EQ(absent->status, SettingStatus::gated);
  EXPECT_EQ(absent->why, "the vLLM release given has no VLLM_USE_NCCL_SYMM_MEM; nothing to set");
}

TEST(SixLines, NoNcclSymmetricMemoryWithNccl2292OverPcie) {
  const FixtureSettings f = pcie8({{"vllm", "0.16.0"}}, "2.29.2");  // the old rule would have said `try`
  for (int w : {4, 8}) {
    for (const char* id : {"vllm.nccl_symm", "sglang.nccl_symm"}) {
      const EngineSetting* s = f.setting(w, id);
      EXPECT_EQ(s->status, SettingStatus::gated) << id << " at " << w;
      EXPECT_TRUE(contains(s->why, "NCCL 2.29.2 and later run their symmetric kernels only where every GPU pair is "
                                   "directly NVLink-connected")) << s->why;
      EXPECT_TRUE(contains(s->versions, "NCCL 2.29.2 (given)")) << s->versions;
    }
  }
  // NCCL 2.28.9 given: the gate is open (the measured comparison decides).
  EXPECT_NE(pcie8({}, "2.28.9").setting(8, "sglang.nccl_symm")->status, SettingStatus::gated);
}

TEST(SixLines, SglangCustomAllReduceIsGatedOnMoreThanTwoPcieGpus) {
  for (const char* fixture : {"pcie8-crossovers.json", "nccl-default-wins.json", "no-fused.json"}) {
    const FixtureSettings f = settings_of(fixture_path(fixture));
    for (const WorldSettings& w : f.report.worlds) {
      const EngineSetting* s = f.setting(w.world, "sglang.custom_ar");
      if (w.world <= 2) {
        EXPECT_NE(s->status, SettingStatus::gated) << fixture;
        continue;
      }
      EXPECT_EQ(s->status, SettingStatus::gated) << fixture << " " << w.world;
      EXPECT_EQ(s->paste, "");
      EXPECT_EQ(s->why, "SGLang turns its custom all-reduce off on more than two GPUs that are not all NVLink-connected "
                        "(CustomAllReduceV2 needs NVLink at any count): --disable-custom-all-reduce changes nothing here");
      for (const std::string& line : f.engine(w.world, "SGLang").command)
        EXPECT_FALSE(contains(line, "--disable-custom-all-reduce")) << fixture;
    }
  }
}

TEST(SixLines, VllmTwoGpuCustomAllReduceIsOneShotOnly) {
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"));
  // Two-shot measured faster above 32 KiB at 2 GPUs, but vLLM cannot switch; the fork-only
  // variable is never printed.
  const EngineSetting* s = f.setting(2, "vllm.custom_ar_shots");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->status, SettingStatus::gated);
  EXPECT_EQ(s->paste, "");
  EXPECT_EQ(s->value, "two-shot measured faster above 32 KiB");
  EXPECT_EQ(s->why, "vLLM cannot switch to two-shot: at two GPUs it always runs its one-stage kernel, and no upstream "
                    "variable changes that");
  for (const char* fixture : {"pcie8-crossovers.json", "nccl-default-wins.json", "no-fused.json", "nvlink-sm100.json"}) {
    const FixtureSettings g = settings_of(fixture_path(fixture));
    EXPECT_FALSE(contains(format_settings(g.report), "VLLM_CUSTOM_ALLREDUCE_ALGO")) << fixture;
  }
}

TEST(SixLines, TensorRtLlmOverPcieRunsNcclAndLowPrecisionDoesNotEngage) {
  // Issue 50 corrected both: AUTO, ONESHOT and TWOSHOT fall back to NCCL (NCCL_SYMMETRIC does not),
  // and LOWPRECISION never engages at the commit read (test_settings_release_lines.cpp).
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"));
  for (int w : {2, 4, 8}) {
    const EngineSetting* s = f.setting(w, "trtllm.strategy");
    EXPECT_EQ(s->status, SettingStatus::keep);
    EXPECT_EQ(s->paste, "");
    EXPECT_EQ(s->value, "NCCL (AUTO, ONESHOT and TWOSHOT fall back to it here)");
    const EngineSetting* lp = f.setting(w, "trtllm.lowprecision");
    ASSERT_NE(lp, nullptr);
    EXPECT_EQ(lp->status, SettingStatus::gated);
    EXPECT_EQ(lp->paste, "");
    EXPECT_EQ(lp->run_line, "");  // nothing to measure for a path that does not engage
  }
}

TEST(SixLines, FlashInferOneShotCoversAtLeastTheGpuCount) {
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"));
  // One-shot holds up to 4 tokens at every world size; two-shot asserts token_num > world_size.
  EXPECT_EQ(f.setting(8, "flashinfer.use_oneshot")->paste, "use_oneshot=(token_num <= 8)");
  EXPECT_EQ(f.setting(8, "flashinfer.use_oneshot")->value,
            "one-shot up to 4 tokens, two-shot above (two-shot needs token_num > 8: one-shot up to 8 tokens at least)");
  EXPECT_EQ(f.setting(4, "flashinfer.use_oneshot")->paste, "use_oneshot=(token_num <= 4)");
  EXPECT_EQ(f.setting(2, "flashinfer.use_oneshot")->paste, "use_oneshot=(token_num <= 4)");
  for (const char* fixture : {"pcie8-crossovers.json", "nccl-default-wins.json", "nvlink-sm100.json"}) {
    const FixtureSettings g = settings_of(fixture_path(fixture));
    for (const WorldSettings& w : g.report.worlds) {
      const std::string& paste = g.setting(w.world, "flashinfer.use_oneshot")->paste;
      if (paste == "use_oneshot=True") continue;
      ASSERT_EQ(paste.rfind("use_oneshot=(token_num <= ", 0), 0u) << fixture << ": " << paste;
      EXPECT_GE(std::stoi(paste.substr(26)), w.world) << fixture << ": " << paste;
    }
  }
}

TEST(SixLines, VllmFusionIsJudgedOnTheKernelItPicks) {
  // SM120 (no entry in vLLM's one-shot table): vLLM runs one-shot at every size. Fused one-shot
  // beats the best unfused pair up to 8 tokens (the best fused kernel, two-shot, up to 64).
  const FixtureSettings f = settings_of(fixture_path("pcie8-crossovers.json"));
  const EngineSetting* s = f.setting(8, "vllm.fusion");
  EXPECT_EQ(s->status, SettingStatus::try_it);
  EXPECT_EQ(s->paste, "--compilation-config '{\"pass_config\": {\"fuse_allreduce_rms\": true, "
                      "\"fi_allreduce_fusion_max_size_mb\": 0.125}}'");
  EXPECT_EQ(s->value, "on up to 8 tokens x hidden 8192 x bf16 = 128 KiB");
  EXPECT_TRUE(contains(s->why, "judged on the kernel vLLM runs here (one-shot at every size (its table has no entry "
                               "for capability 12.0))")) << s->why;
  EXPECT_EQ(f.world(8).findings.fusion.lead, 64u);  // the best fused kernel, which vLLM would not run
  // SM100 over NVLink: one-shot up to 1 MiB on 8 GPUs, two-shot above; both win: `set` up to 256 tokens.
  const FixtureSettings b = settings_of(fixture_path("nvlink-sm100.json"));
  const EngineSetting* n = b.setting(8, "vllm.fusion");
  EXPECT_EQ(n->status, SettingStatus::set);
  EXPECT_EQ(n->value, "on up to 256 tokens x hidden 8192 x bf16 = 4 MiB");
  EXPECT_TRUE(contains(n->why, "(one-shot up to 1 MiB, two-shot above)")) << n->why;
  EXPECT_TRUE(contains(b.engine(8, "vLLM").command.back(), "\"fi_allreduce_fusion_max_size_mb\": 4}"))
      << b.engine(8, "vLLM").command.back();
}

}  // namespace
}  // namespace arbench
