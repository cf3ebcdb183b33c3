// compare: matching by name, worst-first order, geometric mean, regressions, the machine
// fingerprint refusal, and the three output formats.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/host/analysis/compare_test_util.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using namespace testing;  // the synthetic results

struct Pair {
  ResultFile base, next;
};

// base: four cases; new: one 10% slower, one 10% faster, one unchanged, one failed, plus one new.
Pair sample_pair() {
  const std::string a = ar_name("nccl", 8, 1024), b = ar_name("ring", 8, 1024),
                    c = ar_name("twoshot", 8, 1024), d = ar_name("oneshot-push", 8, 1024);
  const json base = make_result({{a, jittered(20, 0.01, 40, 1)},
                                 {b, jittered(30, 0.01, 40, 2)},
                                 {c, jittered(40, 0.01, 40, 3)},
                                 {d, jittered(10, 0.01, 40, 4)},
                                 {ar_name("nccl-symm", 8, 1024), jittered(15, 0.01, 40, 5)}});
  const json next = make_result({{a, jittered(22, 0.01, 40, 11)},
                                 {b, jittered(27, 0.01, 40, 12)},
                                 {c, jittered(40, 0.01, 40, 13)},
                                 {d, {}, false},
                                 {ar_name("oneshot-pull", 8, 1024), jittered(12, 0.01, 40, 14)}});
  return {as_file(base, "base.json"), as_file(next, "new.json")};
}

TEST(Compare, VerdictsOrderAndGeomean) {
  const Pair p = sample_pair();
  const CompareReport rep = compare_results(p.base, p.next, {});
  ASSERT_EQ(rep.rows.size(), 4u);
  EXPECT_EQ(rep.rows[0].result.verdict, Verdict::failed);
  EXPECT_EQ(rep.rows[0].reason, "3 wrong elements");
  EXPECT_EQ(rep.rows[1].result.verdict, Verdict::slower);
  EXPECT_EQ(rep.rows[1].name, ar_name("nccl", 8, 1024));
  EXPECT_EQ(rep.rows[2].result.verdict, Verdict::same);
  EXPECT_EQ(rep.rows[3].result.verdict, Verdict::faster);
  EXPECT_EQ(rep.regressions, 2);
  // geomean over the three measured ratios: about (1.1 * 0.9 * 1.0)^(1/3)
  EXPECT_NEAR(rep.geomean_ratio, std::cbrt(1.1 * 0.9), 0.01);
  EXPECT_EQ(rep.only_in_base, std::vector<std::string>{ar_name("nccl-symm", 8, 1024)});
  EXPECT_EQ(rep.only_in_new, std::vector<std::string>{ar_name("oneshot-pull", 8, 1024)});
}

TEST(Compare, UnchangedHasNoRegression) {
  const Pair p = sample_pair();
  const CompareReport rep = compare_results(p.base, p.base, {});
  EXPECT_EQ(rep.regressions, 0);
  EXPECT_DOUBLE_EQ(rep.geomean_ratio, 1.0);
  ASSERT_EQ(rep.rows.size(), 5u);  // every case of the base, each against itself
  for (const CaseComparison& r : rep.rows) EXPECT_EQ(r.result.verdict, Verdict::same) << r.name;
}

TEST(Compare, FailedInBaseIsNotComparable) {
  const json base = make_result({{ar_name("nccl", 8, 1024), {}, false}});
  const json next = make_result({{ar_name("nccl", 8, 1024), {1, 2, 3}}});
  const CompareReport rep = compare_results(as_file(base, "b"), as_file(next, "n"), {});
  EXPECT_TRUE(rep.rows.empty());
  ASSERT_EQ(rep.not_comparable.size(), 1u);
  EXPECT_NE(rep.not_comparable[0].find("failed in BASE"), std::string::npos);
  EXPECT_EQ(rep.regressions, 0);
}

TEST(Compare, RefusesDifferentMachinesNamingEachField) {
  const std::vector<SynthCase> cases = {{ar_name("nccl", 8, 1024), {1, 2, 3}}};
  auto fields = testing::default_fingerprint_fields();
  fields["gpu_count"] = "4";
  fields.erase("host_name");
  const ResultFile base = as_file(make_result(cases), "base.json");
  const ResultFile next = as_file(make_result(cases, "fedcba9876543210", fields), "new.json");
  const auto refusal = test::thrown<UsageError>([&] { compare_results(base, next, {}); });
  ASSERT_TRUE(refusal) << "expected a refusal";
  const std::string m = refusal->what();
  EXPECT_EQ(refusal->exit_code(), 2);
  EXPECT_NE(m.find("different machines"), std::string::npos) << m;
  EXPECT_NE(m.find("gpu_count: \"8\" vs \"4\""), std::string::npos) << m;
  EXPECT_NE(m.find("host_name: \"box1\" vs \"(absent)\""), std::string::npos) << m;
  EXPECT_EQ(m.find("gpu_name"), std::string::npos) << m;  // equal fields are not listed
  EXPECT_NE(m.find("--allow-different-machines"), std::string::npos) << m;
  CompareOptions allow;
  allow.allow_different_machines = true;
  const CompareReport rep = compare_results(base, next, allow);
  EXPECT_EQ(rep.machine_differences.size(), 2u);
  ASSERT_FALSE(rep.notes.empty());
  EXPECT_NE(rep.notes[0].find("compared anyway"), std::string::npos);
}

TEST(Compare, PlainGoogleBenchmarkFilesWarnAboutMissingFingerprint) {
  const json plain = {{"benchmarks",
                       {{{"name", "BM_A"}, {"real_time", 10.0}, {"time_unit", "us"}},
                        {{"name", "BM_A"}, {"real_time", 11.0}, {"time_unit", "us"}}}}};
  const CompareReport rep = compare_results(as_file(plain, "a"), as_file(plain, "b"), {});
  ASSERT_EQ(rep.rows.size(), 1u);
  EXPECT_EQ(rep.rows[0].base_samples, 2u);
  EXPECT_EQ(rep.notes.size(), 2u);
  EXPECT_NE(rep.notes[0].find("no machine fingerprint"), std::string::npos);
}

TEST(CompareReport, Formats) {
  const Pair p = sample_pair();
  const CompareReport rep = compare_results(p.base, p.next, {});
  const std::string text = format_compare(rep, ReportFormat::text);
  EXPECT_NE(text.find("geometric mean"), std::string::npos);
  EXPECT_NE(text.find("+10."), std::string::npos) << text;
  EXPECT_NE(text.find("Only in BASE (1)"), std::string::npos);
  EXPECT_NE(text.find("2 regression(s)"), std::string::npos);
  // Worst first: the table rows, in order, are failed, slower, same, faster (each row found by
  // its case name at the start of a line, with its verdict on the same line).
  auto row = [&](const std::string& name, const std::string& verdict) {
    const std::size_t at = text.find("\n" + name + " ");
    EXPECT_NE(at, std::string::npos) << name << " has no row:\n" << text;
    const std::string line = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(verdict), std::string::npos) << line;
    return at;
  };
  const std::size_t failed = row(ar_name("oneshot-push", 8, 1024), "failed"),
                    slower = row(ar_name("nccl", 8, 1024), "slower"), same = row(ar_name("twoshot", 8, 1024), "same"),
                    faster = row(ar_name("ring", 8, 1024), "faster");
  EXPECT_LT(failed, slower);
  EXPECT_LT(slower, same);
  EXPECT_LT(same, faster);

  const std::string md = format_compare(rep, ReportFormat::markdown);
  EXPECT_NE(md.find("|---|---:|---:|---:|---:|---|"), std::string::npos) << md;
  EXPECT_NE(md.find("**slower**"), std::string::npos);

  const json j = json::parse(format_compare(rep, ReportFormat::json));
  EXPECT_EQ(j["regressions"], 2);
  ASSERT_EQ(j["cases"].size(), 4u);
  EXPECT_EQ(j["cases"][1]["verdict"], "slower");
  EXPECT_TRUE(j["cases"][0]["ratio"].is_null());  // failed: no ratio
  EXPECT_EQ(j["only_in_new"][0], ar_name("oneshot-pull", 8, 1024));
  EXPECT_NEAR(j["threshold"].get<double>(), 0.05, 1e-12);

  EXPECT_EQ(parse_report_format("md"), ReportFormat::markdown);
  EXPECT_FALSE(parse_report_format("html").has_value());
}

}  // namespace
}  // namespace arbench
