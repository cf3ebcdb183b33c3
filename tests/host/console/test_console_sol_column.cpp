// The console table's `% SOL` column (bench/console/console_table.hpp): present only in a run with
// speed-of-light floors; 100 x floor / median with one decimal under its header, `-` for a case
// without a floor, and a `!` after a case faster than its floor (never shown as a plain figure).
// And its SMs column (at the end of this file).
#include <gtest/gtest.h>

#include <sstream>

#include "console/console_table.hpp"
#include "tests/host/console/console_rows.hpp"

namespace arbench {
namespace {

using testing::BenchRun;
using test::lines_of;
using testing::run_of;

const std::string kAt = "allreduce/oneshot-pull/bf16/gpus:8/bytes:1048576";
const std::string kNone = "allreduce/nccl/bf16/gpus:8/bytes:1048576";
const std::string kBelow = "allreduce/ring/bf16/gpus:8/bytes:1048576";

TEST(ConsoleSolColumn, ShowsPercentOfTheFloorDashWithoutOneAndMarksACaseBelowIt) {
  std::ostringstream out;
  ConsoleTable table({kAt, kNone, kBelow}, true, {}, true);
  table.SetOutputStream(&out);
  BenchRun at = run_of(kAt, 20);
  at.counters["sol_us"] = 8.25;
  at.counters["pct_of_sol"] = 41.25;
  BenchRun below = run_of(kBelow, 10);
  below.counters["sol_us"] = 12.5;
  below.counters["pct_of_sol"] = 125;
  table.ReportRuns({at, run_of(kNone, 30), below});
  const auto lines = lines_of(out.str());
  ASSERT_GE(lines.size(), 5u) << out.str();
  for (const auto& l : lines) EXPECT_LE(l.size(), std::size_t(ConsoleTable::kWidthLimit)) << l;
  const std::string& header = lines[1];
  ASSERT_NE(header.find("pipelined us  SMs  % SOL   check"), std::string::npos) << header;
  const std::size_t end = header.find("% SOL") + std::string("% SOL").size();
  EXPECT_EQ(lines[2].substr(end - 5, 6), " 41.2 ") << lines[2] << "\n" << header;  // 41.25 to one decimal
  EXPECT_EQ(lines[3].substr(end - 1, 2), "- ") << lines[3] << "\n" << header;
  EXPECT_EQ(lines[4].substr(end - 5, 6), "125.0!") << lines[4] << "\n" << header;
  for (std::size_t i = 2; i < 5; ++i) EXPECT_EQ(lines[i].substr(lines[i].size() - 4), "  ok") << lines[i];
}

TEST(ConsoleSolColumn, ARunWithoutFloorsHasNoColumn) {
  std::ostringstream out;
  ConsoleTable table({kAt}, true);
  table.SetOutputStream(&out);
  table.ReportRuns({run_of(kAt, 20)});
  EXPECT_EQ(out.str().find("% SOL"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace arbench

namespace arbench {
namespace {

// The SMs column (docs/output.md, "sms"): every run has it, right after `pipelined us`: the case's
// count under its header, `-` when unknown (no counter: plain nccl).
TEST(ConsoleSmsColumn, ShowsTheCountUnderItsHeaderAndADashWhenUnknown) {
  std::ostringstream out;
  ConsoleTable table({kAt, kNone}, true);
  table.SetOutputStream(&out);
  BenchRun at = testing::run_of(kAt, 20);
  at.counters["sms"] = 64;
  table.ReportRuns({at, testing::run_of(kNone, 30)});
  const auto lines = test::lines_of(out.str());
  ASSERT_GE(lines.size(), 4u) << out.str();
  const std::string& header = lines[1];
  ASSERT_NE(header.find("pipelined us  SMs  check"), std::string::npos) << header;
  const std::size_t end = header.find("SMs") + 3;
  EXPECT_EQ(lines[2].substr(end - 3, 5), " 64  ") << lines[2] << "\n" << header;
  EXPECT_EQ(lines[3].substr(end - 3, 5), "  -  ") << lines[3] << "\n" << header;
}

}  // namespace
}  // namespace arbench
