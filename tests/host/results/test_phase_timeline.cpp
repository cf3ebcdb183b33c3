// The phase timeline's arithmetic (bench/results/phase_timeline.hpp) on hand-made records.
#include <gtest/gtest.h>

#include <vector>

#include "arbench/core/errors.hpp"
#include "results/phase_timeline.hpp"

namespace arbench {
namespace {

const std::vector<PhaseMark> kMarks = {{"entry", PhaseBucket::entry},
                                       {"staged", PhaseBucket::staging},
                                       {"peers", PhaseBucket::wait},
                                       {"reduced", PhaseBucket::reduce},
                                       {"exit", PhaseBucket::exit}};

void expect_near(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-9) << "mark " << i;
}

std::vector<std::uint64_t> record() { return std::vector<std::uint64_t>(kPhaseRecordWords, 0); }

void put(std::vector<std::uint64_t>& rec, int block, std::vector<std::uint64_t> ns) {
  for (std::size_t m = 0; m < ns.size(); ++m) rec[static_cast<std::size_t>(block) * kMaxPhaseMarks + m] = ns[m];
}

// Two ranks; rank 1 starts 2 µs late and its block 1 leaves last. Offsets shift the whole op.
RecordedOp two_rank_op(std::uint64_t offset, double op_us, std::uint64_t stretch = 0) {
  auto r0 = record(), r1 = record();
  put(r0, 0, {1000, 2000, 5000, 6000, 7000});
  put(r1, 0, {3000, 3500, 5500, 8000, 9000});
  put(r1, 1, {3100, 3600, 5600, 8100, 11000 + stretch});
  for (auto* r : {&r0, &r1})
    for (auto& v : *r)
      if (v != 0) v += offset;
  return {{r0, r1}, op_us};
}

TEST(PhaseTimeline, BreakdownOfOneOpByHand) {
  const PhaseTimeline t = build_timeline(kMarks, {two_rank_op(1'000'000, 12.5)});
  // Last rank per mark: entry 3000, staged 3500, peers 5500, reduced 8000, exit 11000 (rank 1,
  // block 1); first entry 1000.
  EXPECT_DOUBLE_EQ(t.breakdown.entry_skew, 2.0);
  EXPECT_DOUBLE_EQ(t.breakdown.staging, 0.5);
  EXPECT_DOUBLE_EQ(t.breakdown.wait, 2.0);
  EXPECT_DOUBLE_EQ(t.breakdown.reduce, 2.5);
  EXPECT_DOUBLE_EQ(t.breakdown.exit_skew, 3.0);
  EXPECT_DOUBLE_EQ(t.span_us, 10.0);
  EXPECT_DOUBLE_EQ(t.breakdown.total(), t.span_us);
  EXPECT_DOUBLE_EQ(t.after_last_arrival_us, 8.0);
  EXPECT_DOUBLE_EQ(t.op_us, 12.5);
  ASSERT_EQ(t.ranks.size(), 2u);
  expect_near(t.ranks[0].marks_us, {0, 1, 4, 5, 6});
  expect_near(t.ranks[1].marks_us, {2, 2.5, 4.5, 7, 10});  // exit: block 1's
  EXPECT_EQ(t.ranks[1].slowest_block, 1);
  expect_near(t.ranks[1].slowest_us, {2.1, 2.6, 4.6, 7.1, 10});
  EXPECT_EQ(t.ranks[0].slowest_block, 0);
  EXPECT_EQ(t.missing_marks, 0);
  EXPECT_EQ(t.marks, (std::vector<std::string>{"entry", "staged", "peers", "reduced", "exit"}));
}

TEST(PhaseTimeline, ReportsTheMedianOpAndMediansOverOps) {
  // Spans 10, 14 and 30 µs; fabric times 11, 40, 15.
  const PhaseTimeline t =
      build_timeline(kMarks, {two_rank_op(0, 11), two_rank_op(5000, 40, 20000), two_rank_op(9000, 15, 4000)});
  EXPECT_EQ(t.ops, 3);
  EXPECT_DOUBLE_EQ(t.span_us, 14.0);  // the median op by span
  EXPECT_DOUBLE_EQ(t.op_us, 15.0);    // that op's own fabric time
  EXPECT_DOUBLE_EQ(t.breakdown.exit_skew, 7.0);
  EXPECT_DOUBLE_EQ(t.latency_us, 15.0);             // median of 11, 40, 15
  EXPECT_DOUBLE_EQ(t.after_last_arrival_us, 12.0);  // median of 8, 28, 12
}

TEST(PhaseTimeline, AMissingMarkTakesThePreviousTimeAndIsCounted) {
  RecordedOp op = two_rank_op(0, 11);
  op.records[0][1] = 0;  // rank 0, block 0: staged not recorded
  const PhaseTimeline t = build_timeline(kMarks, {op});
  EXPECT_EQ(t.missing_marks, 1);
  EXPECT_EQ(t.ranks[0].marks_us[1], t.ranks[0].marks_us[0]);
  EXPECT_DOUBLE_EQ(t.breakdown.total(), t.span_us);
}

TEST(PhaseTimeline, ABlockOfTheSecondKernelOnlyCanBeTheSlowest) {
  RecordedOp op = two_rank_op(0, 11);
  put(op.records[0], 5, {0, 0, 0, 6500, 12000});  // block 5 ran only the last two marks
  const PhaseTimeline t = build_timeline(kMarks, {op});
  EXPECT_EQ(t.ranks[0].slowest_block, 5);
  expect_near(t.ranks[0].slowest_us, {5.5, 5.5, 5.5, 5.5, 11});
  EXPECT_DOUBLE_EQ(t.ranks[0].marks_us.back(), 11.0);
  EXPECT_DOUBLE_EQ(t.span_us, 11.0);
  EXPECT_EQ(t.missing_marks, 0) << "only block 0's gaps count";
}

TEST(PhaseTimeline, RefusesARankWithoutMarksAndBadMarkLists) {
  RecordedOp op = two_rank_op(0, 11);
  op.records[1] = record();
  EXPECT_THROW(build_timeline(kMarks, {op}), CaseError);
  op = two_rank_op(0, 11);
  op.records[1].clear();  // a rank nobody gathered
  EXPECT_THROW(build_timeline(kMarks, {op}), CaseError);
  EXPECT_THROW(build_timeline({{"entry", PhaseBucket::entry}}, {two_rank_op(0, 1)}), CaseError);
  EXPECT_THROW(build_timeline(kMarks, {}), CaseError);
}

TEST(PhaseTimeline, BreakdownText) {
  PhaseBreakdown b{0.5, 1, 2.25, 3, 0.126};
  EXPECT_EQ(breakdown_text(b), "0.50 · 1.00 · 2.25 · 3.00 · 0.13 us");
}

}  // namespace
}  // namespace arbench
