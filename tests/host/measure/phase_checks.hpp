// What every recorded phase timeline must satisfy (docs/latency-breakdown.md), shared by the
// harness tests of --phases and --skew.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "results/phase_timeline.hpp"

namespace arbench::testing {

inline void expect_sound_timeline(const PhaseTimeline& t, const std::string& name) {
  SCOPED_TRACE(name);
  const double res_us = t.resolution_ns * 1e-3;
  EXPECT_GT(t.resolution_ns, 0.0);
  EXPECT_EQ(t.missing_marks, 0) << "a protocol skipped one of its marks";
  ASSERT_FALSE(t.ranks.empty());
  double first_entry = t.ranks.front().marks_us.front(), last_exit = 0;
  for (const RankTimeline& r : t.ranks) {
    ASSERT_EQ(r.marks_us.size(), t.marks.size());
    ASSERT_EQ(r.slowest_us.size(), t.marks.size());
    // Monotonic per rank: the rank's marks, and the slowest block's own.
    for (std::size_t m = 1; m < r.marks_us.size(); ++m) {
      EXPECT_LE(r.marks_us[m - 1], r.marks_us[m]) << "rank " << r.rank << " mark " << t.marks[m];
      EXPECT_LE(r.slowest_us[m - 1], r.slowest_us[m]) << "rank " << r.rank << " block " << r.slowest_block;
    }
    EXPECT_GE(r.marks_us.back(), r.slowest_us.back() - 1e-9) << "the rank's exit is its slowest block's";
    first_entry = std::min(first_entry, r.marks_us.front());
    last_exit = std::max(last_exit, r.marks_us.back());
  }
  EXPECT_DOUBLE_EQ(first_entry, 0.0) << "times count from the first rank's entry";
  // The op's time from the marks themselves (first entry to last exit) is the breakdown's sum;
  // and every rank's own entry-to-exit lies inside the op's time as the fabric measured it around
  // each rank's launch (the maximum over ranks).
  EXPECT_NEAR(t.span_us, last_exit, res_us);
  EXPECT_NEAR(t.breakdown.total(), t.span_us, res_us);
  for (const RankTimeline& r : t.ranks)
    EXPECT_LE(r.marks_us.back() - r.marks_us.front(), t.op_us + res_us) << "rank " << r.rank;
  for (double part : {t.breakdown.entry_skew, t.breakdown.staging, t.breakdown.wait, t.breakdown.reduce,
                      t.breakdown.exit_skew})
    EXPECT_GE(part, 0.0);
  EXPECT_GE(t.after_last_arrival_us, 0.0);
  EXPECT_LE(t.after_last_arrival_us, t.latency_us + res_us);
}

}  // namespace arbench::testing
