// arbench's console table (bench/console/console_table.hpp): the columns people read, one unit
// per column, rows under their family, failures with their reason, 120 columns for the longest
// names of the default sweeps; and the --wide reporter without Google Benchmark's DEBUG warning.
#include <gtest/gtest.h>

#include <sstream>

#include "console/console_table.hpp"
#include "tests/host/text_checks.hpp"

namespace arbench {
namespace {

using BenchRun = benchmark::BenchmarkReporter::Run;
using test::lines_of;

BenchRun make_run(const std::string& name, double median_us, double p10, double p90, double busbw, double pipelined) {
  BenchRun r;
  r.run_name.function_name = name;
  r.time_unit = benchmark::kMicrosecond;
  r.iterations = 1;
  r.real_accumulated_time = median_us * 1e-6;
  r.counters["p10_us"] = p10;
  r.counters["p90_us"] = p90;
  r.counters["busbw_GBps"] = busbw;
  r.counters["pipelined_us"] = pipelined;
  r.counters["algbw_GBps"] = busbw / 2;  // in the JSON, not in the table
  return r;
}

// The longest names of the default host sweep and of a GPU sweep up to 256M.
const std::vector<std::string> kNames = {
    "allreduce/oneshot-pull/bf16/gpus:8/bytes:1048576",
    "allreduce/nccl[ring/ll128]/bf16/gpus:8/bytes:268435456/inplace",
    "allreduce_rmsnorm/unfused-oneshot/bf16/gpus:8/tokens:256/hidden:8192",
};

TEST(ConsoleTable, ColumnsPeopleReadWithinTheWidth) {
  std::ostringstream out;
  ConsoleTable table(kNames, true);
  table.SetOutputStream(&out);
  table.ReportRuns({make_run(kNames[0], 9.1, 8.8, 9.9, 12.6, 6.3)});
  table.ReportRuns({make_run(kNames[1], 1234567.891, 120000.5, 130000.25, 55.1, -1)});
  BenchRun failed = make_run(kNames[2], 0, 0, 0, 0, -1);
  failed.error_occurred = true;
  failed.error_message = "rank 3 element 17: got 5, want 4 " + std::string(200, 'x');
  table.ReportRuns({failed});
  const std::string text = out.str();
  const auto lines = lines_of(text);
  for (const auto& l : lines) EXPECT_LE(l.size(), std::size_t(ConsoleTable::kWidthLimit)) << l;
  // One header per family, with fixed units; rows without the family prefix.
  EXPECT_NE(text.find("median us"), std::string::npos) << text;
  EXPECT_NE(text.find("p10-p90 us"), std::string::npos) << text;
  EXPECT_NE(text.find("busbw GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("pipelined us"), std::string::npos) << text;
  EXPECT_NE(text.find("\nallreduce "), std::string::npos) << text;
  EXPECT_NE(text.find("\nallreduce_rmsnorm "), std::string::npos) << text;
  EXPECT_NE(text.find("  oneshot-pull/bf16/gpus:8/bytes:1048576 "), std::string::npos) << text;
  EXPECT_NE(text.find("9.10"), std::string::npos) << text;
  EXPECT_NE(text.find("8.80-9.90"), std::string::npos) << text;
  EXPECT_NE(text.find("12.60"), std::string::npos) << text;
  EXPECT_NE(text.find("6.30    -  ok"), std::string::npos) << text;  // SMs unknown: no counter
  EXPECT_EQ(text.find("1.23457e"), std::string::npos) << text;  // never exponents or k/M suffixes
  EXPECT_EQ(text.find("123.457k"), std::string::npos) << text;
  EXPECT_NE(text.find(" 1234567.9 "), std::string::npos) << text;  // fewer decimals, same unit
  EXPECT_NE(text.find("FAILED: rank 3 element 17: got 5, want 4"), std::string::npos) << text;
  EXPECT_EQ(text.find("algbw"), std::string::npos) << text;
  // Every row's numbers end in the same columns as the header's.
  const std::string header = lines[1];
  const std::size_t busbw_end = header.find("busbw GB/s") + std::string("busbw GB/s").size();
  EXPECT_EQ(lines[2].substr(busbw_end - 5, 5), "12.60") << lines[2] << "\n" << header;
}

TEST(ConsoleTable, UncheckedRunsSaySo) {
  std::ostringstream out;
  ConsoleTable table(kNames, false);
  table.SetOutputStream(&out);
  table.ReportRuns({make_run(kNames[0], 9.1, 8.8, 9.9, 12.6, 6.3)});
  EXPECT_NE(out.str().find("unchecked"), std::string::npos) << out.str();
}

// A case whose device state was abnormal carries Google Benchmark's label "DEVICE: ..."
// (run_command sets it): a line of its own under the row, cut to the width.
TEST(ConsoleTable, AbnormalDeviceStateIsMarked) {
  std::ostringstream out;
  ConsoleTable table(kNames, true);
  table.SetOutputStream(&out);
  BenchRun marked = make_run(kNames[0], 9.1, 8.8, 9.9, 12.6, 6.3);
  marked.report_label = "DEVICE: GPU 3 link Gen5 x8, max Gen5 x16";
  BenchRun long_mark = make_run(kNames[1], 9.1, 8.8, 9.9, 12.6, 6.3);
  long_mark.report_label = "DEVICE: GPU 1 throttled (SW power cap); " + std::string(200, 'y');
  table.ReportRuns({marked, long_mark});
  EXPECT_NE(out.str().find("  ok\n    DEVICE: GPU 3 link Gen5 x8, max Gen5 x16\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("  ok\n    DEVICE: GPU 1 throttled (SW power cap); yyy"), std::string::npos) << out.str();
  for (const auto& l : lines_of(out.str())) EXPECT_LE(l.size(), std::size_t(ConsoleTable::kWidthLimit)) << l;
}

// Google Benchmark prints its context block, DEBUG warning included (Debian builds libbenchmark
// without NDEBUG), from ConsoleReporter::ReportContext; arbench's reporters never pass it on.
TEST(ConsoleTable, NoDebugBuildWarningReachesTheUser) {
  benchmark::BenchmarkReporter::Context context;
  std::ostringstream plain_out, plain_err;
  benchmark::ConsoleReporter plain;
  plain.SetOutputStream(&plain_out);
  plain.SetErrorStream(&plain_err);
  plain.ReportContext(context);
  const bool library_warns = plain_err.str().find("Library was built as DEBUG") != std::string::npos;

  std::ostringstream wide_out, wide_err;
  WideConsoleReporter wide(benchmark::ConsoleReporter::OO_Tabular);
  wide.SetOutputStream(&wide_out);
  wide.SetErrorStream(&wide_err);
  wide.ReportContext(context);
  EXPECT_EQ(wide_err.str().find("Library was built as DEBUG"), std::string::npos) << wide_err.str();
  EXPECT_NE(wide_err.str().find("Run on"), std::string::npos) << wide_err.str();  // the rest of the block stays

  std::ostringstream table_out, table_err;
  ConsoleTable table(kNames, true);
  table.SetOutputStream(&table_out);
  table.SetErrorStream(&table_err);
  table.ReportContext(context);
  EXPECT_EQ(table_out.str() + table_err.str(), "");
  RecordProperty("libbenchmark_prints_debug_warning", library_warns ? "yes" : "no");
}

}  // namespace
}  // namespace arbench
