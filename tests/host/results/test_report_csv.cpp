// The CSV (bench/results/report.hpp results_csv): a failed case has its status, its reason and
// empty timing cells (a 0 would rank it fastest in a spreadsheet); the fused family's columns
// are there; fields with commas or quotes are quoted.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "results/device_state.hpp"
#include "results/fusion_summary.hpp"
#include "results/report.hpp"

namespace arbench {
namespace {

std::vector<std::string> split_csv_line(const std::string& line) {  // RFC 4180, enough for the test
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) out.emplace_back();
    else out.back() += ch;
  }
  return out;
}

std::map<std::string, std::string> row(const std::string& csv, int index) {
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  for (int i = 0; i <= index; ++i) std::getline(in, line);
  const auto keys = split_csv_line(header), values = split_csv_line(line);
  EXPECT_EQ(keys.size(), values.size()) << line;
  std::map<std::string, std::string> m;
  for (std::size_t i = 0; i < keys.size() && i < values.size(); ++i) m[keys[i]] = values[i];
  return m;
}

TEST(ResultsCsv, FailedCasesHaveEmptyTimingsAndAReason) {
  CaseResult ok;
  ok.c = Case{"ring", Family::allreduce, DType::bf16, 8, 1024, 0, 0, false};
  ok.samples_us = {9, 10, 11};
  ok.latency_us.median = 10;
  ok.busbw_gbps = 0.18;
  CaseResult failed = ok;
  failed.c.variant = "oneshot-push";
  failed.ok = false;
  failed.reason = "rank 3 element 17: got 5, want 4, \"first\" wrong";
  failed.latency_us.median = 0;
  failed.wrong_elements = 12;
  const std::string csv = results_csv({ok, failed}, "host");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), kCsvHeader);
  const auto good = row(csv, 0), bad = row(csv, 1);
  EXPECT_EQ(good.at("status"), "ok");
  EXPECT_EQ(good.at("median_us"), "10");
  EXPECT_EQ(good.at("reason"), "");
  EXPECT_EQ(bad.at("status"), "failed");
  EXPECT_EQ(bad.at("reason"), failed.reason);
  for (const char* k : {"median_us", "p10_us", "p90_us", "p99_us", "pipelined_us", "algbw_GBps", "busbw_GBps"})
    EXPECT_EQ(bad.at(k), "") << k;
  EXPECT_EQ(bad.at("wrong_elements"), "12");
  EXPECT_EQ(good.at("max_ulp_error"), "");  // allreduce: no ULP figure
}

TEST(ResultsCsv, FusedColumns) {
  CaseResult fused;
  fused.c = Case{"fused-oneshot", Family::allreduce_rmsnorm, DType::bf16, 8, 16 * 8192 * 2, 16, 8192, false};
  fused.samples_us = {10};
  fused.latency_us.median = 10;
  fused.max_ulp_error = 0.5;
  fused.extra[kSpeedupCounter] = 2;
  fused.extra[kSavedCounter] = 10;
  const auto r = row(results_csv({fused}, "host"), 0);
  EXPECT_EQ(r.at("max_ulp_error"), "0.5");
  EXPECT_EQ(r.at("speedup_vs_unfused"), "2");
  EXPECT_EQ(r.at("fusion_saved_us"), "10");
  EXPECT_EQ(r.at("tokens"), "16");
  EXPECT_EQ(r.at("hidden"), "8192");
}

TEST(ResultsCsv, NoiseAndAbnormalDeviceState) {
  CaseResult r;
  r.c = Case{"twoshot", Family::allreduce, DType::bf16, 4, 65536, 0, 0, false};
  r.samples_us = {10, 11, 12};
  r.latency_us.median = 11;
  r.median_ci_us.known = true;
  r.median_ci_us.noise = 0.025;
  CaseResult quiet = r;
  quiet.median_ci_us.known = false;  // too few samples for an interval: no figure, not 0
  r.device = DeviceState{};
  r.device->findings.push_back({DeviceIssue::link_downtrained, 3, "link Gen5 x8, max Gen5 x16"});
  const std::string csv = results_csv({r, quiet}, "cuda");
  const auto a = row(csv, 0), b = row(csv, 1);
  EXPECT_EQ(a.at("noise_pct"), "2.5");
  EXPECT_EQ(a.at("device_state"), "GPU 3 link Gen5 x8, max Gen5 x16");
  EXPECT_EQ(b.at("noise_pct"), "");
  EXPECT_EQ(b.at("device_state"), "");
}

}  // namespace
}  // namespace arbench
