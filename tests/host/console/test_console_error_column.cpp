// The console table's error column (bench/console/console_table.hpp): present only when the run
// has a lossy case; the lossy rows show rms_rel_err in percent (a fixed unit, no exponent), the
// exact rows `exact`, a lossy row without the figure (unchecked) `-`; the longest default names
// still fit 120 columns, and the figures stay aligned under their headers.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "console/console_table.hpp"
#include "tests/host/console/console_rows.hpp"

namespace arbench {
namespace {

using testing::BenchRun;
using test::lines_of;
using testing::run_of;

const std::string kExact = "allreduce/oneshot-pull/bf16/gpus:8/bytes:1048576";
const std::string kLossy = "allreduce/twoshot-fp8/bf16/gpus:8/bytes:16777216";
const std::string kUnchecked = "allreduce/oneshot-fp8/bf16/gpus:8/bytes:1048576";

TEST(ConsoleErrorColumn, LossyRowsShowTheirErrorExactRowsSayExact) {
  std::ostringstream out;
  ConsoleTable table({kExact, kLossy, kUnchecked}, true, {kLossy, kUnchecked});
  table.SetOutputStream(&out);
  BenchRun lossy = run_of(kLossy, 412.5);
  lossy.counters["rms_rel_err"] = 0.00912;
  lossy.counters["max_abs_err"] = 0.0625;
  table.ReportRuns({run_of(kExact, 9.1), lossy, run_of(kUnchecked, 30)});
  const auto lines = lines_of(out.str());
  ASSERT_GE(lines.size(), 5u) << out.str();
  for (const auto& l : lines) EXPECT_LE(l.size(), std::size_t(ConsoleTable::kWidthLimit)) << l;
  const std::string& header = lines[1];
  ASSERT_NE(header.find("rms err %  check"), std::string::npos) << header;
  const std::size_t err_end = header.find("rms err %") + std::string("rms err %").size();
  // The figures' lines (a name too long for its column stands on a line of its own above them).
  std::vector<std::string> rows;
  for (std::size_t i = 2; i < lines.size(); ++i)
    if (lines[i].size() > err_end && lines[i].ends_with("  ok")) rows.push_back(lines[i]);
  ASSERT_EQ(rows.size(), 3u) << out.str();
  EXPECT_EQ(rows[0].substr(err_end - 5, 5), "exact") << rows[0] << "\n" << header;
  EXPECT_EQ(rows[1].substr(err_end - 5, 5), "0.912") << rows[1] << "\n" << header;  // 0.00912 in percent
  EXPECT_EQ(rows[2].substr(err_end - 1, 1), "-") << rows[2] << "\n" << header;
  EXPECT_EQ(out.str().find("e-0"), std::string::npos) << out.str();  // never an exponent
}

TEST(ConsoleErrorColumn, AbsentWithoutALossyCase) {
  std::ostringstream out;
  ConsoleTable table({kExact}, true);
  table.SetOutputStream(&out);
  BenchRun r = run_of(kExact, 9.1);
  r.counters["rms_rel_err"] = 0.5;  // even a stray counter does not bring the column in
  table.ReportRuns({r});
  EXPECT_EQ(out.str().find("err"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("exact"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace arbench
