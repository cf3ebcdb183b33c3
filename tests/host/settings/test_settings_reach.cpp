// The fixtures that reach the branches the PCIe fixtures cannot (make_fixtures.py): an SM100
// box with every GPU pair NVLink-connected (vLLM fusion `set`, SGLang fusion, FlashInfer `set`,
// TensorRT-LLM's ONESHOT / TWOSHOT / NCCL_SYMMETRIC), a result whose cold-cache, in-place and
// skewed twins are left out without replacing the hot case, and two results of one machine
// where the later file's case wins. Each expected line is stated here by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using testing::FixtureSettings;
using testing::fixture_path;
using testing::settings_of;

TEST(SettingsReach, AnNvlinkSm100BoxGetsTheNvlinkPaths) {
  const FixtureSettings f = settings_of(fixture_path("nvlink-sm100.json"));
  // TensorRT-LLM: one-shot best on 2, two-shot on 4, NCCL on symmetric memory on 8; each a `try`
  // (the strategies' behaviour is read at a commit not matched to a release).
  const std::pair<int, const char*> strategies[] = {{2, "ONESHOT"}, {4, "TWOSHOT"}, {8, "NCCL_SYMMETRIC"}};
  for (const auto& [w, strategy] : strategies) {
    const EngineSetting* s = f.setting(w, "trtllm.strategy");
    EXPECT_EQ(s->status, SettingStatus::try_it) << w;
    EXPECT_EQ(s->paste, std::string("allreduce_strategy: ") + strategy) << w;
    EXPECT_EQ(f.setting(w, "trtllm.lowprecision")->status, SettingStatus::gated) << w;
    EXPECT_EQ(f.setting(w, "trtllm.lowprecision")->why, "TensorRT-LLM uses it only without NVLink");
    // vLLM fusion is `set` and in the command; SGLang's fusion is reached (a `try`: its release is not pinned).
    EXPECT_EQ(f.setting(w, "vllm.fusion")->status, SettingStatus::set) << w;
    EXPECT_NE(f.engine(w, "vLLM").command.back().find("fuse_allreduce_rms"), std::string::npos) << w;
    EXPECT_EQ(f.setting(w, "sglang.fusion")->status, SettingStatus::try_it) << w;
    EXPECT_EQ(f.setting(w, "sglang.fusion")->paste, "--enable-flashinfer-allreduce-fusion");
    EXPECT_EQ(f.setting(w, "flashinfer.use_oneshot")->status, SettingStatus::set) << w;
    // Custom all-reduce runs over NVLink at every count: never gated. It wins on 2 and 4 (keep),
    // loses on 8 (vLLM: `set` off; SGLang: `try`, its release not pinned).
    const SettingStatus vllm_ar = w == 8 ? SettingStatus::set : SettingStatus::keep;
    const SettingStatus sglang_ar = w == 8 ? SettingStatus::try_it : SettingStatus::keep;
    EXPECT_EQ(f.setting(w, "vllm.custom_ar")->status, vllm_ar) << w;
    EXPECT_EQ(f.setting(w, "sglang.custom_ar")->status, sglang_ar) << w;
  }
  EXPECT_EQ(f.setting(4, "vllm.custom_ar_shots")->why, "one-stage below 512 KiB on up to 4 GPUs, 256 KiB on 8; not settable");
  EXPECT_EQ(f.setting(8, "sglang.torch_symm"), nullptr);  // SM100 with NVLink: not gated
  // NCCL 2.29.2 over NVLink keeps its symmetric kernels: vLLM's NCCL symmetric memory is judged.
  SettingsOptions opt = testing::fixed_paths();
  opt.stack.nccl = parse_version("2.29.2");
  EXPECT_NE(settings_of(fixture_path("nvlink-sm100.json"), opt).setting(8, "vllm.nccl_symm")->status, SettingStatus::gated);
}

TEST(SettingsReach, ColdInPlaceAndSkewedCasesAreLeftOutAndNeverReplaceTheHotCase) {
  const FixtureSettings f = settings_of(fixture_path("what-ifs.json"));
  // The twins are 70% faster; had one replaced its hot case, nccl-symm and the custom kernels would win.
  EXPECT_EQ(f.world(2).findings.nccl_symm.wins, 0);
  EXPECT_EQ(f.world(2).findings.nccl_symm.losses, 8);
  EXPECT_EQ(f.world(2).findings.custom.lead, 0u);
  for (const Evidence& e : f.world(2).findings.nccl_symm.evidence)
    EXPECT_GT(e.chosen_us, e.other_us) << e.size;  // the hot nccl-symm, 10% slower
  const std::vector<std::string>& out = f.report.ignored;
  for (const char* why : {"40 cases left out: in place (engines all-reduce out of place)",
                          "40 cases left out: cold cache (engines find their input in cache)",
                          "40 cases left out: an arrival skew (a what-if)"})
    EXPECT_NE(std::find(out.begin(), out.end(), why), out.end()) << why;
}

TEST(SettingsReach, TheLaterResultOfOneMachineWins) {
  const FixtureSettings first = settings_of(fixture_path("merge-first.json"));
  EXPECT_EQ(first.setting(2, "vllm.custom_ar")->status, SettingStatus::set);
  EXPECT_EQ(first.setting(2, "vllm.custom_ar")->paste, "--disable-custom-all-reduce");
  // merge-later measured oneshot-push again: now faster than NCCL up to 64 KiB.
  FixtureSettings both;
  both.measured = load_measured({fixture_path("merge-first.json"), fixture_path("merge-later.json")}, "bf16", std::nullopt);
  both.report = make_settings(*both.measured, testing::fixed_paths());
  const EngineSetting* s = both.setting(2, "vllm.custom_ar");
  EXPECT_EQ(both.world(2).findings.custom.lead, 64u << 10);
  // vLLM's line is judged on the kernel vLLM runs at two GPUs (its one-stage schedule: oneshot-pull,
  // not measured again), so it still says off; TensorRT-LLM's line reads the later findings.
  EXPECT_EQ(s->status, SettingStatus::set);
  EXPECT_EQ(s->paste, "--disable-custom-all-reduce");
  EXPECT_NE(both.setting(2, "trtllm.strategy")->why.find("a custom P2P kernel would beat NCCL up to 64 KiB here"),
            std::string::npos)
      << both.setting(2, "trtllm.strategy")->why;
  const std::string again = "allreduce/oneshot-push/bf16/gpus:2/bytes:1024: measured again in " +
                            fixture_path("merge-later.json") + "; that measurement is used";
  EXPECT_NE(std::find(both.report.ignored.begin(), both.report.ignored.end(), again), both.report.ignored.end());
}

}  // namespace
}  // namespace arbench
