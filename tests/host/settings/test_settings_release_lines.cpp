// The eleven settings lines issue 50 found wrong or unsourced, each stated here by hand with the
// release boundary it turns on (knobs.cpp says where each fact was read), on the committed
// fixtures (make_fixtures.py) for given versions.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>

#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using namespace testing;  // settings_fixture.hpp: pcie8, cached_settings, contains, ...

// A copy of `fixture` with its cases edited by `edit`, as a temporary file.
struct EditedFixture {
  std::string path;
  template <class F>
  EditedFixture(const std::string& fixture, const std::string& tag, F edit) {
    nlohmann::json j = nlohmann::json::parse(read_text(fixture_path(fixture)));
    edit(j["arbench"]["cases"]);
    path = ::testing::TempDir() + "/" + tag + "-" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << j.dump();
  }
  ~EditedFixture() { std::remove(path.c_str()); }
};

// 1. NCCL 2.27.3 to 2.27.7 run their symmetric kernels on one node where every GPU pair is directly
//    P2P-connected, PCIe included; 2.29.2 and later only over NVLink; before 2.27.3 there are none.
TEST(ReleaseLines, Nccl227HasSymmetricKernelsOverPcie) {
  const FixtureSettings& f = pcie8({{"vllm", "0.16.0"}}, "2.27.7");  // the docs' NCCL
  for (int w : {4, 8}) {
    const EngineSetting* v = f.setting(w, "vllm.nccl_symm");
    EXPECT_EQ(v->status, SettingStatus::try_it) << w << ": " << v->why;  // the measured gain at >= 1/2 MiB
    EXPECT_EQ(v->paste, "VLLM_USE_NCCL_SYMM_MEM=1 NCCL_CUMEM_ENABLE=1");
    EXPECT_TRUE(contains(v->versions, "for NCCL 2.27.7 (given): holds for 2.27.3 to 2.27.7 (read at v2.27.3-1, "
                                      "v2.27.7-1)")) << v->versions;
    const EngineSetting* s = f.setting(w, "sglang.nccl_symm");
    EXPECT_NE(s->status, SettingStatus::gated) << s->why;
    EXPECT_FALSE(contains(s->why, "NVLink")) << s->why;
  }
  // NCCL 2.27 looks up tuner interfaces v4..v2 only: arbench's plugin (v5, v6) loads from 2.28.3.
  EXPECT_EQ(f.setting(8, "nccl.tuner_plugin")->status, SettingStatus::gated);
  EXPECT_EQ(f.setting(8, "nccl.tuner_plugin")->paste, "");
  EXPECT_EQ(pcie8({{"vllm", "0.16.0"}}, "2.28.9").setting(8, "nccl.tuner_plugin")->status, SettingStatus::set);
  // The boundary above: 2.29.2 gates it on PCIe, with the NVLink reason.
  EXPECT_TRUE(contains(pcie8({{"vllm", "0.16.0"}}, "2.29.2").setting(8, "vllm.nccl_symm")->why,
                       "NCCL 2.29.2 and later run their symmetric kernels only where every GPU pair is directly "
                       "NVLink-connected"));
  // The boundary below: 2.26 has no symmetric kernels at all, and the reason says so (not NVLink).
  for (const char* id : {"vllm.nccl_symm", "sglang.nccl_symm"}) {
    const EngineSetting* old = pcie8({{"vllm", "0.16.0"}}, "2.26.6").setting(8, id);
    EXPECT_EQ(old->status, SettingStatus::gated) << id;
    EXPECT_TRUE(contains(old->why, "the NCCL given has no symmetric kernels (they first appear in 2.27.3)")) << old->why;
    EXPECT_FALSE(contains(old->why, "NVLink")) << old->why;
  }
}

// 2. SGLang up to 0.5.11 runs its first custom all-reduce at two PCIe GPUs; from 0.5.12 (PR #24363)
//    CustomAllReduceV2 is the default, needs NVLink and does not fall back: NCCL runs unless
//    SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0.
TEST(ReleaseLines, SglangTwoGpuCustomAllReduceFollowsV2) {
  const EngineSetting* v1 = pcie8({{"sglang", "0.5.11"}}).setting(2, "sglang.custom_ar");
  EXPECT_EQ(v1->status, SettingStatus::keep);
  EXPECT_EQ(v1->value, "on (SGLang's default)");
  const EngineSetting* v2 = pcie8({{"sglang", "0.5.12"}}).setting(2, "sglang.custom_ar");
  EXPECT_EQ(v2->status, SettingStatus::try_it);  // the release boundary is not read at a tag
  EXPECT_EQ(v2->paste, "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0");
  EXPECT_EQ(v2->value, "the first custom kernel: it beats NCCL up to 64 KiB");  // its one-stage kernel (issue 58)
  EXPECT_TRUE(contains(v2->why, "CustomAllReduceV2 needs NVLink between every GPU pair and does not fall back")) << v2->why;
  // No version given: the newest entry (V2), never "custom all-reduce on" over PCIe.
  EXPECT_EQ(pcie8().setting(2, "sglang.custom_ar")->paste, "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0");
  // Where NCCL wins: before V2 the flag turns the custom kernel off; with V2 NCCL already runs.
  const EngineSetting* off = cached_settings("nccl-default-wins.json", {{"sglang", "0.5.11"}}).setting(2, "sglang.custom_ar");
  EXPECT_EQ(off->paste, "--disable-custom-all-reduce");
  const EngineSetting* nothing = cached_settings("nccl-default-wins.json", {{"sglang", "0.5.12"}}).setting(2, "sglang.custom_ar");
  EXPECT_EQ(nothing->status, SettingStatus::keep);
  EXPECT_EQ(nothing->paste, "");
  EXPECT_EQ(nothing->value, "NCCL (what SGLang runs here)");
}

// 3. TensorRT-LLM's LOWPRECISION needs 2,097,152 elements (4 MiB in bf16); one copy read compares the
//    hidden size with that count (never engages), another the message: which release holds which is
//    unknown (issue 58), and the line stays gated.
TEST(ReleaseLines, TensorRtLlmLowPrecisionStaysGated) {
  const FixtureSettings& f = pcie8();
  for (int w : {2, 4, 8}) {
    const EngineSetting* lp = f.setting(w, "trtllm.lowprecision");
    EXPECT_EQ(lp->status, SettingStatus::gated) << w;
    EXPECT_EQ(lp->paste, "");
    EXPECT_EQ(lp->value, "unknown: NCCL, or FP8 from 2,097,152 elements");
    EXPECT_TRUE(contains(lp->why, "or the hidden size (at commit 01e2c3612da7: then it never engages for a real model "
                                  "and the all-reduce runs NCCL)")) << lp->why;
    EXPECT_TRUE(contains(lp->versions, "not in a release we could find")) << lp->versions;
  }
  // FP8 measured faster from 2 MiB: compared from 4 MiB (2,097,152 bf16 elements) up, and still gated.
  const EditedFixture fp8("pcie8-crossovers.json", "lowprec", [](nlohmann::json& cases) {
    for (std::uint64_t b = 2u << 20; b <= 16u << 20; b *= 2)
      cases.push_back({{"name", "allreduce/oneshot-fp8/bf16/gpus:8/bytes:" + std::to_string(b)},
                       {"status", "ok"},
                       {"samples_us", {50, 51, 52, 50, 51, 52, 50, 51, 52, 50, 51, 52}},
                       {"median_us", 51}});
  });
  const FixtureSettings measured = settings_of(fp8.path);
  const EngineSetting* lp = measured.setting(8, "trtllm.lowprecision");
  EXPECT_EQ(lp->status, SettingStatus::gated);
  EXPECT_TRUE(contains(lp->why, "Measured: FP8 on the wire is faster than NCCL at 3 and slower at 0 of 3 sizes "
                                "measured at 4 MiB or more")) << lp->why;
}

// 4. TensorRT-LLM without NVLink: AUTO, ONESHOT and TWOSHOT fall back to NCCL, but UB, NCCL and
//    NCCL_SYMMETRIC return first, and NCCL_SYMMETRIC runs NCCL's symmetric kernels where that NCCL
//    runs them over PCIe (2.27.3 to 2.29.1).
TEST(ReleaseLines, TensorRtLlmNcclSymmetricRunsOverPcie) {
  const FixtureSettings& f = pcie8();
  const EngineSetting* s = f.setting(8, "trtllm.strategy");
  EXPECT_EQ(s->status, SettingStatus::keep);
  EXPECT_EQ(s->value, "NCCL (AUTO, ONESHOT and TWOSHOT fall back to it here)");
  EXPECT_FALSE(contains(s->why, "every strategy")) << s->why;
  EXPECT_TRUE(contains(s->why, "UB, NCCL and NCCL_SYMMETRIC are taken as given")) << s->why;
  // nccl-symm is faster from 1 MiB and slower below: one strategy cannot follow that.
  EXPECT_TRUE(contains(s->why, "NCCL_SYMMETRIC would be faster than plain NCCL at 5 and slower at 10 of 15 sizes "
                               "measured: one strategy holds for every size, so NCCL stays")) << s->why;
  // nccl-symm faster at every size: NCCL_SYMMETRIC is offered (try: the release is not pinned) ...
  const EditedFixture fast("pcie8-crossovers.json", "symm", [](nlohmann::json& cases) {
    for (nlohmann::json& c : cases)
      if (c["name"].get<std::string>().find("/nccl-symm/") != std::string::npos) {
        for (auto& x : c["samples_us"]) x = x.get<double>() * 0.5;
        c["median_us"] = c["median_us"].get<double>() * 0.5;
      }
  });
  const FixtureSettings faster = settings_of(fast.path);
  const EngineSetting* t = faster.setting(8, "trtllm.strategy");
  EXPECT_EQ(t->status, SettingStatus::try_it) << t->why;
  EXPECT_EQ(t->paste, "allreduce_strategy: NCCL_SYMMETRIC");
  // ... but not with an NCCL that runs its symmetric kernels only over NVLink.
  SettingsOptions opt = testing::fixed_paths();
  opt.stack.nccl = parse_version("2.29.2");
  const FixtureSettings nvlink_only = settings_of(fast.path, opt);
  const EngineSetting* g = nvlink_only.setting(8, "trtllm.strategy");
  EXPECT_EQ(g->paste, "");
  EXPECT_TRUE(contains(g->why, "NCCL_SYMMETRIC would not help: NCCL 2.29.2 and later run their symmetric kernels "
                               "only where every GPU pair is directly NVLink-connected")) << g->why;
}

// 5. VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC: in vLLM's docs of 0.32.0 (PR #53576), not of 0.23.0
//    (0.24.0 to 0.31.x: unknown, test_settings_release_lines_r4.cpp), and only with FlashInfer's PCIe
//    IPC all-reduce, which no FlashInfer tag up to v0.6.18rc7 has (0.7.1's docs do).
TEST(ReleaseLines, VllmFlashInferPcieIpcNeedsItsReleaseAndFlashInfersToo) {
  for (const char* old : {"0.11.0", "0.16.0", "0.17.0", "0.23.0"}) {
    const EngineSetting* s = pcie8({{"vllm", old}}).setting(2, "vllm.fi_pcie_ipc");
    EXPECT_EQ(s->status, SettingStatus::gated) << old;
    EXPECT_EQ(s->paste, "") << old;
    EXPECT_EQ(s->why, "the vLLM release given has no VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC; nothing to set") << old;
  }
  const EngineSetting* now = pcie8({{"vllm", "0.32.0"}}).setting(2, "vllm.fi_pcie_ipc");
  EXPECT_EQ(now->status, SettingStatus::try_it);
  EXPECT_EQ(now->paste, "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1");
  EXPECT_TRUE(contains(now->why, "it needs FlashInfer with flashinfer.comm's PCIe IPC all-reduce (0.7.1 has it; no "
                                 "tag up to 0.6.18rc7 does; the releases between were not read)")) << now->why;
  EXPECT_TRUE(contains(now->versions, "for vLLM 0.32.0 (given): holds for 0.32.0 and later")) << now->versions;
  // A FlashInfer release up to the newest tag read lacks the kernel: vLLM falls back.
  const EngineSetting* fi = pcie8({{"vllm", "0.32.0"}, {"flashinfer", "0.6.17"}}).setting(2, "vllm.fi_pcie_ipc");
  EXPECT_EQ(fi->status, SettingStatus::gated);
  EXPECT_TRUE(contains(fi->why, "the FlashInfer given has no PCIe IPC all-reduce")) << fi->why;
  EXPECT_TRUE(contains(fi->versions, "is in no release up to 0.6.18rc7 (read); it is in 0.7.1")) << fi->versions;
}

// 6. SGLANG_ENABLE_PCIE_IPC_ALLREDUCE is only in an open pull request: said, never offered to paste.
TEST(ReleaseLines, SglangPcieIpcIsInNoRelease) {
  for (const char* fixture : {"pcie8-crossovers.json", "nccl-default-wins.json", "no-fused.json", "nvlink-sm100.json"}) {
    const FixtureSettings f = settings_of(fixture_path(fixture));
    for (const WorldSettings& w : f.report.worlds) {
      const EngineSetting* s = f.setting(w.world, "sglang.pcie_ipc");
      if (!s) continue;
      EXPECT_EQ(s->status, SettingStatus::gated) << fixture;
      EXPECT_EQ(s->paste, "");
      EXPECT_TRUE(contains(s->why, "only in SGLang PR #34528 (open): not in a release we could find")) << s->why;
    }
    EXPECT_FALSE(contains(format_settings(f.report), "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1")) << fixture;
  }
  EXPECT_NE(pcie8().setting(2, "sglang.pcie_ipc"), nullptr);  // the custom kernel wins at 2 GPUs
}

// 7. vLLM's fusion switch: enable_fi_allreduce_fusion up to 0.11.x, fuse_allreduce_rms from 0.12.0
//    (PR #29646).
TEST(ReleaseLines, VllmFusionKeyFollowsTheRename) {
  const EngineSetting* old = pcie8({{"vllm", "0.11.0"}}).setting(8, "vllm.fusion");
  EXPECT_EQ(old->paste, "--compilation-config '{\"pass_config\": {\"enable_fi_allreduce_fusion\": true}}'");
  EXPECT_TRUE(contains(old->why, "the size key of this release is not pinned, so the line sets only the switch"))
      << old->why;
  EXPECT_TRUE(contains(old->versions, "for vLLM 0.11.0 (given): holds for 0.10.0 to 0.11.2")) << old->versions;
  const EngineSetting* renamed = pcie8({{"vllm", "0.12.0"}}).setting(8, "vllm.fusion");
  EXPECT_EQ(renamed->paste, "--compilation-config '{\"pass_config\": {\"fuse_allreduce_rms\": true, "
                            "\"fi_allreduce_fusion_max_size_mb\": 0.125}}'");
  for (const char* v : {"0.11.0", "0.11.2"})
    EXPECT_FALSE(contains(format_settings(pcie8({{"vllm", v}}).report), "fuse_allreduce_rms")) << v;
}

// 8. FlashInfer's own one-shot rule: one-shot up to 128 tokens from 0.2.9 to 0.4.x; by size from
//    0.5.0 (commit 4512a6c7d): at hidden 8192 in bf16 168 / 512 / 8192 tokens at 8 / 4 / 2 GPUs. On the
//    B200 box: on 12.x these releases cannot build the fused kernel (issue 58).
TEST(ReleaseLines, FlashInferOwnRuleByRelease) {
  const FixtureSettings& old = cached_settings("nvlink-sm100.json", {{"flashinfer", "0.4.1"}});
  for (int w : {2, 4, 8})
    EXPECT_EQ(old.setting(w, "flashinfer.use_oneshot")->why.rfind(
                  "FlashInfer's own rule in this release (use_oneshot=None) is one-shot up to 128 tokens, whatever "
                  "the hidden size;", 0),
              0u)
        << w << ": " << old.setting(w, "flashinfer.use_oneshot")->why;
  const FixtureSettings& now = cached_settings("nvlink-sm100.json", {{"flashinfer", "0.5.0"}});
  const std::map<int, std::string> tokens = {{2, "8192"}, {4, "512"}, {8, "168"}};
  for (const auto& [w, t] : tokens)
    EXPECT_EQ(now.setting(w, "flashinfer.use_oneshot")->why.rfind(
                  "at hidden 8192 FlashInfer's own rule (use_oneshot=None, tuned on B200) switches after " + t +
                      " tokens;", 0),
              0u)
        << w << ": " << now.setting(w, "flashinfer.use_oneshot")->why;
  // Before 0.2.7 there is no use_oneshot argument (a required one in 0.2.7 and 0.2.8).
  EXPECT_EQ(cached_settings("nvlink-sm100.json", {{"flashinfer", "0.2.6"}}).setting(8, "flashinfer.use_oneshot")->status,
            SettingStatus::gated);
}

// 9. SGLang's NCCL_CUMEM_ENABLE: newer copies set 0 only when unset, older ones always; the release
//    of that change is not found, and the line says both.
TEST(ReleaseLines, SglangCumemSaysWhichCopiesHonourIt) {
  const EngineSetting* s = pcie8().setting(8, "sglang.cumem");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->status, SettingStatus::try_it);  // unverified: never in the command
  EXPECT_TRUE(contains(s->why, "SGLang sets NCCL_CUMEM_ENABLE=0 unless the variable is set; older copies set it "
                               "whatever it is, and then this changes nothing (the release of that change is not in "
                               "a release we could find)")) << s->why;
  for (const std::string& line : pcie8().engine(8, "SGLang").command) EXPECT_FALSE(contains(line, "NCCL_CUMEM_ENABLE"));
}

// 10. The tuner v7 claim: no branch or tag of NCCL read has the commit once cited; the docs cite
//     the releases read instead.
TEST(ReleaseLines, NoUnsourcedTunerV7Commit) {
  const std::string doc = read_text(std::string(ARBENCH_SOURCE_DIR) + "/docs/engine-settings.md");
  EXPECT_FALSE(contains(doc, "2449986f"));
  EXPECT_TRUE(contains(doc, "No NCCL release we could read (tags up to v2.30.7-1) has a v7 tuner interface"));
}

// 11. trtllm-serve: --extra_llm_api_options in every release (--config is an alias only in newer ones).
TEST(ReleaseLines, TrtllmServeTakesExtraLlmApiOptions) {
  // The NVLink box with its custom kernels and NCCL symmetric memory ten times slower at 8 GPUs:
  // TensorRT-LLM's strategy is NCCL (`try`: the entry is read at a commit), for the YAML file that
  // the line names trtllm-serve's option for.
  const EditedFixture slow("nvlink-sm100.json", "nccl-strategy", [](nlohmann::json& cases) {
    for (nlohmann::json& c : cases) {
      const std::string name = c["name"].get<std::string>();
      const bool custom = name.find("/oneshot-") != std::string::npos || name.find("/twoshot/") != std::string::npos ||
                          name.find("/nccl-symm/") != std::string::npos;
      if (!custom || name.find("allreduce/") != 0 || name.find("/gpus:8/") == std::string::npos) continue;
      for (auto& x : c["samples_us"]) x = x.get<double>() * 10;
      c["median_us"] = c["median_us"].get<double>() * 10;
    }
  });
  const FixtureSettings f = settings_of(slow.path);
  const EngineSetting* s = f.setting(8, "trtllm.strategy");
  EXPECT_EQ(s->paste, "allreduce_strategy: NCCL") << s->why;
  EXPECT_EQ(std::string(s->entry->what), "the all-reduce strategy, in the YAML given to trtllm-serve "
                                         "--extra_llm_api_options");
  for (const char* fixture : {"nvlink-sm100.json", "pcie8-crossovers.json"}) {
    const std::string text = format_settings(settings_of(fixture_path(fixture)).report);
    EXPECT_FALSE(contains(text, "--config")) << fixture;
    EXPECT_TRUE(contains(text, "--extra_llm_api_options")) << fixture;
  }
}

// NCCL's example tuner plugin reads its CSV file safely from 2.30.3 (2.27.5 to 2.29.7 crash on the
// first matching row): its line offers the paste only from there.
TEST(ReleaseLines, NcclExamplePluginOnlyFrom2303) {
  for (const char* old : {"2.27.7", "2.28.9", "2.29.2"}) {
    const EngineSetting* ex = pcie8({{"vllm", "0.16.0"}}, old).setting(8, "nccl.example_plugin");
    ASSERT_NE(ex, nullptr) << old;
    EXPECT_EQ(ex->status, SettingStatus::gated) << old << ": " << ex->why;
    EXPECT_EQ(ex->paste, "") << old;
    EXPECT_TRUE(contains(ex->why, "from 2.30.3")) << ex->why;
  }
  const EngineSetting* ok = pcie8({{"vllm", "0.16.0"}}, "2.30.3").setting(8, "nccl.example_plugin");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->status, SettingStatus::try_it) << ok->why;
  EXPECT_TRUE(contains(ok->paste, "NCCL_TUNER_CONFIG_FILE=")) << ok->paste;
}

}  // namespace
}  // namespace arbench
