// The pieces of `arbench settings` below the fixtures: NCCL variant names (as kernels/nccl runs
// them), which results are accepted (and the message naming the file when not), the evidence
// rule and its text (the knob catalogue: test_knob_catalogue.cpp).
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "settings/evidence.hpp"
#include "settings/measured.hpp"
#include "settings/nccl_plan.hpp"
#include "tests/host/results/synthetic_result.hpp"
#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

TEST(NcclVariantName, ParsesWhatArbenchRuns) {
  const auto plain = parse_nccl_variant("nccl");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->kind, NcclVariant::plain);
  EXPECT_EQ(parse_nccl_variant("nccl[tuned]")->kind, NcclVariant::tuned);
  EXPECT_EQ(parse_nccl_variant("nccl-symm")->kind, NcclVariant::symm);
  const auto forced = parse_nccl_variant("nccl[tree/simple]");
  ASSERT_TRUE(forced);
  EXPECT_EQ(forced->kind, NcclVariant::forced);
  EXPECT_EQ(forced->algo, tuner::kAlgoTree);
  EXPECT_EQ(forced->proto, tuner::kProtoSimple);
  EXPECT_EQ(forced->channels, 0);
  const auto ch = parse_nccl_variant("nccl[ring/ll128/ch:16]");
  ASSERT_TRUE(ch);
  EXPECT_EQ(ch->proto, tuner::kProtoLL128);
  EXPECT_EQ(ch->channels, 16);
  EXPECT_EQ(nccl_forced_name(tuner::kAlgoRing, tuner::kProtoLL, 4), "nccl[ring/ll/ch:4]");
  EXPECT_EQ(nccl_forced_name(tuner::kAlgoTree, tuner::kProtoSimple, 0), "nccl[tree/simple]");
  for (const char* bad : {"ncclx", "nccl[ring]", "nccl[ring/ll/ch:0]", "nccl[ring/ll/ch:65]", "nccl[Ring/LL]",
                          "nccl[nvls/simple]", "nccl[ring/ll/ch:x]", "oneshot-push", "nccl[ring/ll"})
    EXPECT_FALSE(parse_nccl_variant(bad)) << bad;
}

std::string error_of(const std::vector<std::string>& paths) {
  try {
    load_measured(paths, "bf16", std::nullopt);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(SettingsInputs, OnlyGpuResultsOfOneMachineAreAccepted) {
  const std::string host = std::string(ARBENCH_SOURCE_DIR) + "/results/samples/host-cpu-timing-sample.json";
  EXPECT_NE(error_of({host}).find(host + ": a result of the host backend"), std::string::npos) << error_of({host});

  const std::string a = testing::fixture_path("pcie8-crossovers.json");
  nlohmann::json j = nlohmann::json::parse(testing::read_text(testing::fixture_path("no-fused.json")));
  j["arbench"]["provenance"]["fingerprint"] = "0000000000000000";
  const std::string other = testing::write_temp(j.dump(), "other-machine");
  EXPECT_NE(error_of({a, other}).find(other + ": measured on another machine (fingerprint 0000000000000000"),
            std::string::npos)
      << error_of({a, other});

  const std::string plain = testing::write_temp(R"({"benchmarks": []})", "plain");
  EXPECT_NE(error_of({plain}).find(plain + ": plain Google Benchmark JSON"), std::string::npos);
  EXPECT_NE(error_of({"/no/such/result.json"}).find("/no/such/result.json: no such file"), std::string::npos);
  const std::string table = testing::write_temp("arbench-nccl-tuner-table 1\n", "table");
  EXPECT_NE(error_of({table}).find(table + ": not valid JSON"), std::string::npos) << error_of({table});
}

TEST(SettingsInputs, TwoResultsOfOneMachineAreMerged) {
  // The main sweep, then the channel sweep settings asked for: the later file's case wins.
  const auto m = load_measured({testing::fixture_path("no-fused.json"), testing::fixture_path("no-fused.json")}, "bf16",
                               std::nullopt);
  EXPECT_EQ(m->paths.size(), 2u);
  ASSERT_FALSE(m->ignored.empty());
  EXPECT_NE(m->ignored.front().find("measured again in"), std::string::npos);
}

TEST(SettingsInputs, TheHiddenSizeMustHaveBeenMeasured) {
  try {
    load_measured({testing::fixture_path("pcie8-crossovers.json")}, "bf16", 4096);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--hidden 4096: the fused family was measured at hidden 8192"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(load_measured({testing::fixture_path("pcie8-crossovers.json")}, "bf16", 8192)->hidden, 8192);
}

TEST(SettingsInputs, AWorldSizeNotMeasuredIsRefused) {
  const auto m = load_measured({testing::fixture_path("no-fused.json")}, "bf16", std::nullopt);
  SettingsOptions opt = testing::fixed_paths();
  opt.worlds = {16};
  try {
    make_settings(*m, opt);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--gpus 16: the results hold no bf16 case on 16 GPUs (measured: 4, 8)");
  }
}

TEST(SettingsEvidence, TheRuleIsCompares) {
  ResultCase fast, slow, same;
  fast.variant = "a";
  slow.variant = "b";
  same.variant = "c";
  fast.samples_us = testing::jittered(10, 0.01, 12, 1);
  slow.samples_us = testing::jittered(20, 0.01, 12, 2);
  same.samples_us = testing::jittered(10.2, 0.01, 12, 3);
  fast.median_us = 10, slow.median_us = 20, same.median_us = 10.2;
  const VerdictOptions opt;  // alpha 0.01, margin 5%
  const Evidence e = weigh(fast, slow, "bytes", 65536, opt);
  EXPECT_TRUE(e.beats);
  EXPECT_FALSE(e.loses);
  EXPECT_EQ(evidence_text(e).substr(0, 51), "64 KiB: a 10.00 us vs b 20.00 us: 50.0% faster (p 7");
  const Evidence back = weigh(slow, fast, "bytes", 65536, opt);
  EXPECT_TRUE(back.loses);
  const Evidence tie = weigh(same, fast, "tokens", 16, opt);  // 2% apart: below the margin
  EXPECT_FALSE(tie.beats);
  EXPECT_FALSE(tie.loses);
  EXPECT_NE(evidence_text(tie).find("16 tokens: c 10.20 us vs a 10.00 us: 2.0% slower, "), std::string::npos)
      << evidence_text(tie);
}

TEST(SettingsRunLines, SizesAsTheCommandLineTakesThem) {
  EXPECT_EQ(size_arg(1024), "1K");
  EXPECT_EQ(size_arg(64u << 20), "64M");
  EXPECT_EQ(size_arg(1u << 30), "1G");
  EXPECT_EQ(size_arg(1000), "1000");
  EXPECT_EQ(size_arg(1536), "1536");
}

}  // namespace
}  // namespace arbench
