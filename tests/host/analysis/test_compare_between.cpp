// Two NCCL libraries of one run compared (analysis/compare_between.hpp: `arbench compare RUN.json
// --between nccl,nccl@2.29.2`): A's cases are BASE and B's NEW under their default-library names,
// the report is headed by the NCCL change, a variant only one library measured is left out, and
// tune never puts another library's cases in a dispatch table.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/compare_between.hpp"
#include "analysis/tune.hpp"
#include "tests/host/analysis/compare_test_util.hpp"

namespace arbench::testing {
namespace {

// A run with --nccl-lib: the default NCCL 2.28.3 (`nccl`, also `nccl[tuned]` and a custom kernel)
// and NCCL 2.29.2 beside it (`nccl@2.29.2`, and `nccl-symm@2.29.2`, which the default lacks):
// 2.29.2 twice as fast at 1 KiB, the same at 64 KiB.
ResultFile side_by_side_run() {
  nlohmann::json j = make_result({
      {ar_name("nccl", 8, 1024), jittered(20, 0.02, 30, 1)},
      {ar_name("nccl", 8, 65536), jittered(40, 0.02, 30, 2)},
      {ar_name("nccl[tuned]", 8, 1024), jittered(18, 0.02, 30, 3)},
      {ar_name("oneshot-pull", 8, 1024), jittered(9, 0.02, 30, 4)},
      {ar_name("nccl@2.29.2", 8, 1024), jittered(10, 0.02, 30, 5)},
      {ar_name("nccl@2.29.2", 8, 65536), jittered(40, 0.02, 30, 6)},
      {ar_name("nccl-symm@2.29.2", 8, 1024), jittered(8, 0.02, 30, 7)},
  });
  auto& prov = j["arbench"]["provenance"];
  prov["nccl_library"] = "/usr/lib/libnccl.so.2";
  prov["nccl_libraries"] = {
      {{"variant", "nccl"}, {"label", ""}, {"version", "2.28.3"}, {"path", "/usr/lib/libnccl.so.2"}},
      {{"variant", "nccl@2.29.2"}, {"label", "2.29.2"}, {"version", "2.29.2"}, {"path", "/opt/nccl-2.29.2/libnccl.so.2"}}};
  return as_file(j, "run.json");
}

TEST(CompareBetween, EachLibrarysCasesUnderTheDefaultsNames) {
  const BetweenSplit s = split_between(side_by_side_run(), "nccl", "nccl@2.29.2");
  ASSERT_EQ(s.base.cases.size(), 2u);
  ASSERT_EQ(s.next.cases.size(), 2u);
  for (const ResultFile* f : {&s.base, &s.next})
    for (const ResultCase& c : f->cases) {
      EXPECT_EQ(c.variant, "nccl") << c.name;
      EXPECT_EQ(c.name.find('@'), std::string::npos) << c.name;
    }
  EXPECT_EQ(s.next.cases[0].name, ar_name("nccl", 8, 1024));
  EXPECT_NEAR(s.next.cases[0].median_us, 10, 0.5);  // 2.29.2's samples, under nccl's name
  EXPECT_EQ(s.base.path, "run.json [nccl]");
  EXPECT_EQ(s.next.path, "run.json [nccl@2.29.2]");
  // Left out: what one library measured and the other did not.
  const auto said = [&](const std::string& text) {
    return std::any_of(s.left_out.begin(), s.left_out.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(said("nccl[tuned]: nccl@2.29.2 has no nccl[tuned]"));
  EXPECT_TRUE(said("oneshot-pull: nccl@2.29.2 has no oneshot-pull"));
  EXPECT_TRUE(said("nccl-symm@2.29.2: nccl has no nccl-symm"));
}

TEST(CompareBetween, TheReportIsHeadedByTheNcclChangeAndGatesLikeTwoRuns) {
  const ResultFile run = side_by_side_run();
  CompareOptions opt;
  BetweenSplit up = split_between(run, "nccl", "nccl@2.29.2");
  const CompareReport faster = compare_results(up.base, up.next, opt);
  ASSERT_EQ(faster.stack_changes.size(), 2u);  // nccl_library and nccl_version
  bool version = false;
  for (const StackChange& c : faster.stack_changes)
    if (c.key == "nccl_version") {
      version = true;
      EXPECT_EQ(c.base_value, "2.28.3");
      EXPECT_EQ(c.new_value, "2.29.2");
    }
  EXPECT_TRUE(version);
  ASSERT_EQ(faster.rows.size(), 2u);
  EXPECT_EQ(compare_exit_code(faster), 0);
  const auto verdict_at = [](const CompareReport& r, const std::string& name) {
    for (const CaseComparison& row : r.rows)
      if (row.name == name) return row.result.verdict;
    return Verdict::failed;
  };
  EXPECT_EQ(verdict_at(faster, ar_name("nccl", 8, 1024)), Verdict::faster);
  EXPECT_EQ(verdict_at(faster, ar_name("nccl", 8, 65536)), Verdict::same);
  EXPECT_NE(format_compare(faster, ReportFormat::text).find("NCCL 2.28.3 → 2.29.2"), std::string::npos)
      << format_compare(faster, ReportFormat::text);
  // The other way round, the older library is the slower one: a regression (exit 1).
  BetweenSplit down = split_between(run, "nccl@2.29.2", "nccl");
  const CompareReport slower = compare_results(down.base, down.next, opt);
  EXPECT_EQ(verdict_at(slower, ar_name("nccl", 8, 1024)), Verdict::slower);
  EXPECT_EQ(compare_exit_code(slower), 1);
}

TEST(CompareBetween, TheDefaultByItsVersionAndWhatIsRefused) {
  const ResultFile run = side_by_side_run();
  // `nccl@2.28.3`: no library has that label, and the default is 2.28.3.
  EXPECT_EQ(split_between(run, "nccl@2.28.3", "nccl@2.29.2").base.cases.size(), 2u);
  const std::string unknown =
      test::thrown_message<UsageError>([&] { split_between(run, "nccl", "nccl@2.30.0"); });
  EXPECT_NE(unknown.find("run.json has no NCCL library nccl@2.30.0; its libraries: nccl (NCCL 2.28.3), nccl@2.29.2 "
                         "(NCCL 2.29.2)"),
            std::string::npos)
      << unknown;
  EXPECT_NE(test::thrown_message<UsageError>([&] { split_between(run, "nccl", "nccl@2.28.3"); })
                .find("both name the same library"),
            std::string::npos);
  EXPECT_NE(test::thrown_message<UsageError>([&] { split_between(run, "ring", "nccl"); })
                .find("'ring' is not a library of a run"),
            std::string::npos);
  EXPECT_EQ(library_selector_problem("nccl"), "");
  EXPECT_EQ(library_selector_problem("nccl@new"), "");
  EXPECT_NE(library_selector_problem("nccl@"), "");
  EXPECT_NE(library_selector_problem("nccl@a/b"), "");
  // A run whose libraries measured no variant in common.
  const ResultFile apart = as_file(make_result({{ar_name("oneshot-pull", 8, 1024), jittered(9, 0.02, 30, 1)},
                                                {ar_name("nccl-symm@new", 8, 1024), jittered(8, 0.02, 30, 2)}}),
                                   "apart.json");
  EXPECT_NE(test::thrown_message<UsageError>([&] { split_between(apart, "nccl", "nccl@new"); })
                .find("measured no variant with both"),
            std::string::npos);
}

TEST(CompareBetween, TuneListsAnotherLibrarysCasesAsIgnored) {
  const TuneReport rep = tune_results(side_by_side_run(), 0.01);
  for (const TuneTable& t : rep.tables)
    for (const TunePoint& p : t.points) {
      EXPECT_EQ(p.best.find('@'), std::string::npos) << p.best;
      EXPECT_EQ(p.runner_up.find('@'), std::string::npos) << p.runner_up;
    }
  int said = 0;
  for (const std::string& line : rep.ignored)
    if (line.find("measured beside the run's default; an engine loads one NCCL") != std::string::npos) ++said;
  EXPECT_EQ(said, 2);  // nccl@2.29.2 and nccl-symm@2.29.2
}

}  // namespace
}  // namespace arbench::testing
