// Fusion accounting (bench/results/fusion_summary.hpp): speedup and saved time over the best
// unfused variant (one baseline, so they always agree in sign), the component times the unfused
// variants report, order independence, the table.
#include <gtest/gtest.h>

#include <string>

#include "results/fusion_summary.hpp"
#include "kernels/fused/fused_variant.hpp"

namespace arbench {
namespace {

CaseResult result(const std::string& variant, double median_us, int tokens = 16,
                  std::vector<std::pair<std::string, std::string>> settings = {}) {
  CaseResult r;
  r.c = Case{variant, Family::allreduce_rmsnorm, DType::bf16, 8, std::size_t(tokens) * 8192 * 2, tokens, 8192, false};
  r.latency_us.median = median_us;
  r.settings = std::move(settings);
  return r;
}

std::vector<CaseResult> one_shape() {
  return {result("unfused-nccl", 40, 16, {{kAllreduceOnlyKey, "30"}, {kNormOnlyKey, "6"}}),
          result("unfused-oneshot", 20, 16, {{kAllreduceOnlyKey, "14"}, {kNormOnlyKey, "5"}}),
          result("fused-oneshot", 10), result("fused-twoshot", 25)};
}

TEST(FusionSummary, SpeedupAndSavedTime) {
  auto rs = one_shape();
  add_fusion_counters(rs);
  // best unfused = min(40, 20) = 20 for both figures.
  EXPECT_DOUBLE_EQ(rs[2].extra.at(kSpeedupCounter), 2.0);
  EXPECT_DOUBLE_EQ(rs[2].extra.at(kSavedCounter), 20 - 10);
  EXPECT_DOUBLE_EQ(rs[3].extra.at(kSpeedupCounter), 0.8);
  EXPECT_DOUBLE_EQ(rs[3].extra.at(kSavedCounter), 20 - 25);
  EXPECT_DOUBLE_EQ(rs[0].extra.at(kAllreduceOnlyKey), 30);
  EXPECT_DOUBLE_EQ(rs[1].extra.at(kNormOnlyKey), 5);
  EXPECT_EQ(rs[0].extra.count(kSpeedupCounter), 0u);
}

TEST(FusionSummary, IncrementalCountersNeedTheUnfusedCasesFirst) {
  auto rs = one_shape();
  std::vector<CaseResult> so_far;
  CaseResult fused_first = rs[2];
  add_fusion_counters(fused_first, so_far);  // nothing ran before it: no counters, no crash
  EXPECT_TRUE(fused_first.extra.empty());
  so_far = {rs[0], rs[1]};
  add_fusion_counters(rs[2], so_far);
  EXPECT_DOUBLE_EQ(rs[2].extra.at(kSpeedupCounter), 2.0);
}

TEST(FusionSummary, ShapesAndFailuresAreKeptApart) {
  auto rs = one_shape();
  rs.push_back(result("fused-oneshot", 50, 128));  // another shape, no unfused results
  CaseResult failed = result("unfused-oneshot", 1, 16);
  failed.ok = false;  // a failed case never counts
  rs.push_back(failed);
  add_fusion_counters(rs);
  EXPECT_DOUBLE_EQ(rs[2].extra.at(kSpeedupCounter), 2.0);
  EXPECT_EQ(rs[4].extra.count(kSpeedupCounter), 0u);
  const auto rows = fusion_rows(rs);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].tokens, 128);
  EXPECT_TRUE(std::isnan(rows[1].best_unfused_us()));
}

// The old definitions (saved from the halves measured alone, speedup from the unfused pairs)
// could disagree: here the halves alone sum to 9 us, so the old `saved` was 9 - 10 = -1 us while
// the speedup was 20 / 10 = 2x. With one baseline the signs always agree.
TEST(FusionSummary, SpeedupAndSavedAgreeInSign) {
  std::vector<CaseResult> rs = {result("unfused-oneshot", 20, 16, {{kAllreduceOnlyKey, "4"}, {kNormOnlyKey, "5"}}),
                                result("fused-oneshot", 10), result("fused-twoshot", 30)};
  add_fusion_counters(rs);
  for (const CaseResult* fused : {&rs[1], &rs[2]}) {
    const double speedup = fused->extra.at(kSpeedupCounter), saved = fused->extra.at(kSavedCounter);
    EXPECT_EQ(speedup > 1, saved > 0) << fused->c.name() << ": speedup " << speedup << ", saved " << saved;
  }
  EXPECT_DOUBLE_EQ(rs[1].extra.at(kSavedCounter), 10);
}

TEST(FusionSummary, TableHasOneLinePerShape) {
  auto rs = one_shape();
  rs.push_back(result("fused-twoshot", 50, 128));
  const std::string t = fusion_summary_table(rs);
  EXPECT_NE(t.find("fusion summary"), std::string::npos);
  EXPECT_NE(t.find("2.00x"), std::string::npos) << t;
  EXPECT_NE(t.find("   128 "), std::string::npos) << t;
  EXPECT_NE(t.find("speedup = best unfused / fused, saved = best unfused - fused"), std::string::npos) << t;
  for (std::size_t start = 0, end; (end = t.find('\n', start)) != std::string::npos; start = end + 1)
    EXPECT_LE(end - start, 120u) << t.substr(start, end - start);
  EXPECT_EQ(fusion_summary_table({}), "");
}

}  // namespace
}  // namespace arbench
