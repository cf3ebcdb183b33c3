// The CSV (bench/results/report.hpp results_csv): a failed case has its status, its reason and
// empty timing cells (a 0 would rank it fastest in a spreadsheet); the fused family's columns
// are there; fields with commas or quotes are quoted.
#include <gtest/gtest.h>

#include "results/device_state.hpp"
#include "results/fusion_summary.hpp"
#include "results/report.hpp"
#include "tests/host/results/csv_rows.hpp"

namespace arbench {
namespace {

using test::csv_row;

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
  const auto good = csv_row(csv, 0), bad = csv_row(csv, 1);
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
  const auto r = csv_row(results_csv({fused}, "host"), 0);
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
  const auto a = csv_row(csv, 0), b = csv_row(csv, 1);
  EXPECT_EQ(a.at("noise_pct"), "2.5");
  EXPECT_EQ(a.at("device_state"), "GPU 3 link Gen5 x8, max Gen5 x16");
  EXPECT_EQ(b.at("noise_pct"), "");
  EXPECT_EQ(b.at("device_state"), "");
}

}  // namespace
}  // namespace arbench
