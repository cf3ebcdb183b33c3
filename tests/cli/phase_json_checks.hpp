// What every case's JSON `phases` object must satisfy (docs/latency-breakdown.md), shared by the
// CLI and MPI tests: every mark recorded, each rank's marks in order from the first entry at 0,
// and the breakdown adding up to the span (the op's time from its marks) within the clock's
// resolution.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

// The JSON rounds every figure to the nanosecond: up to 6 of those roundings meet in a sum.
inline void expect_sound_phases(const nlohmann::json& c) {
  SCOPED_TRACE(c["name"].get<std::string>());
  ASSERT_TRUE(c.contains("phases"));
  const auto& p = c["phases"];
  const double tol_us = p["resolution_ns"].get<double>() * 1e-3 + 6e-3;
  EXPECT_GT(p["resolution_ns"].get<double>(), 0.0);
  EXPECT_EQ(p["missing_marks"], 0);
  const std::size_t marks = p["marks"].size();
  double last_exit = 0, first_entry = 1e300;
  for (const auto& r : p["ranks"]) {
    const auto& m = r["marks_us"];
    ASSERT_EQ(m.size(), marks);
    for (std::size_t i = 1; i < marks; ++i) EXPECT_LE(m[i - 1].get<double>(), m[i].get<double>()) << r["rank"];
    first_entry = std::min(first_entry, m[0].get<double>());
    last_exit = std::max(last_exit, m[marks - 1].get<double>());
  }
  EXPECT_DOUBLE_EQ(first_entry, 0.0);
  double sum = 0;
  for (const auto& [k, v] : p["breakdown_us"].items()) sum += v.get<double>();
  EXPECT_NEAR(sum, p["span_us"].get<double>(), tol_us);
  EXPECT_NEAR(last_exit, p["span_us"].get<double>(), tol_us);
}
