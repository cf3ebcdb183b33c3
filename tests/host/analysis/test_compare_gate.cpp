// The gate must not pass by matching nothing, nor by losing cases: no case in common is exit 2,
// cases of BASE missing in NEW fail it (unless allow_missing). Beside a "slower", compare says
// how the device state differed, and does not count it when NEW's state was abnormal (unless
// strict). Recorded noise (the 95% CI of each median) turns a change within it into "noisy".
// correctness_only reports timings without gating them.
#include <gtest/gtest.h>

#include "tests/host/analysis/compare_test_util.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using namespace testing;  // the synthetic results

const std::string kA = ar_name("nccl", 8, 65536), kB = ar_name("ring", 8, 65536);

json gpu_state(int width, unsigned sm_mhz = 2600) {
  json snap = {{"sm_clock_mhz", sm_mhz}, {"mem_clock_mhz", 14001}, {"pstate", 0},
               {"pcie_gen", 5},          {"pcie_width", width},    {"pcie_max_gen", 5},
               {"pcie_max_width", 16},   {"clock_event_reasons", 0}};
  json healthy = snap;
  healthy["pcie_width"] = 16;
  healthy["sm_clock_mhz"] = 2600;
  return {{"gpus", {{{"device", 3}, {"bus_id", "0000:41:00.0"}, {"before", healthy}, {"after", snap}}}}};
}

// Sets arbench.cases[name].<key> = value.
void set_case(json& doc, const std::string& name, const std::string& key, const json& value) {
  for (json& c : doc["arbench"]["cases"])
    if (c["name"] == name) c[key] = value;
}

TEST(CompareGate, NoCaseInCommonIsUnusableInput) {
  const json bf16 = make_result({{ar_name("nccl", 8, 1024), jittered(20, 0.01, 40, 1)}});
  const json fp32 = make_result({{ar_name("nccl", 8, 1024, "fp32"), jittered(20, 0.01, 40, 2)}});
  const auto refusal = test::thrown<UsageError>(
      [&] { compare_results(as_file(bf16, "small_bf16.json"), as_file(fp32, "small_fp32.json"), {}); });
  ASSERT_TRUE(refusal) << "expected a refusal";
  const std::string m = refusal->what();
  EXPECT_EQ(refusal->exit_code(), 2);
  EXPECT_NE(m.find("no case of NEW small_fp32.json matches a case of BASE small_bf16.json"), std::string::npos) << m;
  EXPECT_NE(m.find("allreduce/nccl/fp32/gpus:8/bytes:1024"), std::string::npos) << m;
}

TEST(CompareGate, MissingCasesFailUnlessAllowed) {
  const json base = make_result({{kA, jittered(20, 0.01, 40, 1)}, {kB, jittered(30, 0.01, 40, 2)}});
  const json next = make_result({{kA, jittered(20, 0.01, 40, 3)}});
  CompareReport rep = compare_results(as_file(base, "b"), as_file(next, "n"), {});
  EXPECT_EQ(rep.regressions, 0);
  EXPECT_EQ(rep.missing, 1);
  EXPECT_EQ(compare_exit_code(rep), 1);
  const std::string text = format_compare(rep, ReportFormat::text);
  EXPECT_NE(text.find("Only in BASE (1), missing in NEW: failures (--allow-missing accepts them)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("1 case(s) of BASE missing in NEW (failures)"), std::string::npos) << text;
  EXPECT_EQ(json::parse(format_compare(rep, ReportFormat::json))["gate"], "fail");

  CompareOptions allow;
  allow.allow_missing = true;
  rep = compare_results(as_file(base, "b"), as_file(next, "n"), allow);
  EXPECT_EQ(rep.missing, 0);
  EXPECT_EQ(compare_exit_code(rep), 0);
  // Cases only in NEW never fail the gate.
  EXPECT_EQ(compare_exit_code(compare_results(as_file(next, "n"), as_file(base, "b"), {})), 0);
}

TEST(CompareGate, SlowerWithAbnormalDeviceStateIsReportedNotCounted) {
  json base = make_result({{kA, jittered(20, 0.01, 40, 1)}, {kB, jittered(30, 0.01, 40, 2)}});
  json next = make_result({{kA, jittered(40, 0.01, 40, 3)}, {kB, jittered(30, 0.01, 40, 4)}});
  set_case(base, kA, "device_state", gpu_state(16));
  set_case(next, kA, "device_state", gpu_state(8));  // tonight: x8 on a x16 link
  CompareReport rep = compare_results(as_file(base, "b"), as_file(next, "n"), {});
  ASSERT_EQ(rep.rows[0].name, kA);
  EXPECT_EQ(rep.rows[0].result.verdict, Verdict::slower);
  EXPECT_FALSE(rep.rows[0].counted);
  EXPECT_EQ(rep.regressions, 0);
  EXPECT_EQ(rep.not_counted, 1);
  EXPECT_EQ(compare_exit_code(rep), 0);
  ASSERT_EQ(rep.rows[0].device_differences.size(), 1u);
  EXPECT_EQ(rep.rows[0].device_differences[0], "GPU 3 link Gen5 x8 tonight, Gen5 x16 in the baseline");
  const std::string text = format_compare(rep, ReportFormat::text);
  EXPECT_NE(text.find("slower (not counted)"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU 3 link Gen5 x8 tonight, Gen5 x16 in the baseline"), std::string::npos) << text;
  EXPECT_NE(text.find("--strict counts"), std::string::npos) << text;

  CompareOptions strict;
  strict.strict = true;
  rep = compare_results(as_file(base, "b"), as_file(next, "n"), strict);
  EXPECT_TRUE(rep.rows[0].counted);
  EXPECT_EQ(rep.regressions, 1);
  EXPECT_EQ(compare_exit_code(rep), 1);
  // The difference is still reported beside the verdict.
  EXPECT_EQ(rep.rows[0].device_differences.size(), 1u);
}

TEST(CompareGate, SlowerWithNormalStateCountsAndSaysWhatDiffered) {
  json base = make_result({{kA, jittered(20, 0.01, 40, 1)}});
  json next = make_result({{kA, jittered(40, 0.01, 40, 3)}});
  set_case(base, kA, "device_state", gpu_state(16, 2600));
  set_case(next, kA, "device_state", gpu_state(16, 2600));
  const CompareReport rep = compare_results(as_file(base, "b"), as_file(next, "n"), {});
  EXPECT_TRUE(rep.rows[0].counted);
  EXPECT_TRUE(rep.rows[0].device_differences.empty());
  EXPECT_EQ(compare_exit_code(rep), 1);
}

TEST(CompareGate, RecordedNoiseCallsOverlappingChangesNoisy) {
  // 10% slower and significant by the U test, but each run recorded a 95% CI of its median
  // wider than that: the change is within what the runs measured.
  json base = make_result({{kA, jittered(20, 0.01, 40, 1)}});
  json next = make_result({{kA, jittered(22, 0.01, 40, 2)}});
  set_case(base, kA, "median_ci_us", {17.0, 23.0});
  set_case(next, kA, "median_ci_us", {19.0, 25.0});
  CompareReport rep = compare_results(as_file(base, "b"), as_file(next, "n"), {});
  EXPECT_EQ(rep.rows[0].result.verdict, Verdict::noisy);
  EXPECT_TRUE(rep.rows[0].within_noise);
  EXPECT_NEAR(rep.rows[0].base_noise, 6.0 / 20, 0.01);
  EXPECT_EQ(compare_exit_code(rep), 0);
  // Disjoint intervals: the same change is slower.
  set_case(base, kA, "median_ci_us", {19.9, 20.1});
  set_case(next, kA, "median_ci_us", {21.9, 22.1});
  rep = compare_results(as_file(base, "b"), as_file(next, "n"), {});
  EXPECT_EQ(rep.rows[0].result.verdict, Verdict::slower);
  EXPECT_EQ(compare_exit_code(rep), 1);
}

TEST(CompareGate, CorrectnessOnlyGatesFailuresNotTimings) {
  const json base = make_result({{kA, jittered(20, 0.01, 40, 1)}, {kB, jittered(30, 0.01, 40, 2)}});
  json next = make_result({{kA, jittered(60, 0.01, 40, 3)}, {kB, jittered(30, 0.01, 40, 4)}});
  CompareOptions only;
  only.correctness_only = true;
  CompareReport rep = compare_results(as_file(base, "b"), as_file(next, "n"), only);
  EXPECT_EQ(rep.rows[0].result.verdict, Verdict::slower);
  EXPECT_FALSE(rep.rows[0].counted);
  EXPECT_EQ(compare_exit_code(rep), 0);
  EXPECT_NE(format_compare(rep, ReportFormat::text).find("correctness only"), std::string::npos);
  // A wrong result still fails it.
  next = make_result({{kA, jittered(60, 0.01, 40, 3)}, {kB, {}, false}});
  rep = compare_results(as_file(base, "b"), as_file(next, "n"), only);
  EXPECT_EQ(rep.regressions, 1);
  EXPECT_EQ(compare_exit_code(rep), 1);
}

}  // namespace
}  // namespace arbench
