// Known-answer checks of the measurement, shared by the host test (tests/app/test_known_cost.cpp,
// ranks that sleep) and the GPU test (tests/gpu/test_known_cost_gpu.cpp, a spin kernel): a
// variant whose op costs rank r a known, different time is run end to end through run_sweep,
// and the result JSON must say exactly what that cost implies:
//   - every sample is at least the slowest rank's cost (a sample is the MAXIMUM over ranks, not
//     the minimum, rank 0, the last rank or a mean: the slowest rank is in the middle and the
//     others are much faster). Costs are never cut short, so this holds on any machine however
//     loaded; and the median is below `max_ratio` x the slowest cost (so a unit slip, such as
//     ms taken for us, fails: 1000x);
//   - median, p10, p90, p99 equal the numpy-style percentiles recomputed here from samples_us;
//   - Google Benchmark's real_time (time_unit us) equals median_us, and the counters equal the
//     case's fields;
//   - algbw = bytes / median and busbw = algbw x 2(N-1)/N (nccl-tests' definitions, GB = 1e9 B);
//   - pipelined_us (K ops back to back, one CUDA graph on GPUs) is the time per op: at least the
//     slowest rank's cost, and below max_ratio x it, where max_ratio < K (so the graph's time
//     not divided by K fails, and so does one divided twice).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/variant.hpp"

namespace arbench::testing {

struct KnownCost {
  std::vector<double> rank_us;  // cost of one op on rank r, microseconds
  double max_ratio = 2;         // upper bound, x the slowest rank's cost (margin for a loaded machine)
  double slowest_us() const { return *std::max_element(rank_us.begin(), rank_us.end()); }
};

// A registry of one variant, "known-cost", that `make` builds for the GPU fabrics (`gpu`) or for
// the host fabric; never in the production registry.
inline Registry known_cost_registry(VariantFactory make, bool gpu, const std::string& summary) {
  VariantEntry e;
  e.name = "known-cost";
  e.summary = "test only: " + summary;
  if (gpu) {
    e.gpu = std::move(make);
    e.no_host_reason = "a GPU test variant";
  } else {
    e.host = std::move(make);
    e.no_gpu_reason = "test variant of the host backend";
  }
  Registry reg;
  reg.add(e);
  return reg;
}

// numpy.percentile's default (linear interpolation between closest ranks), written out here
// independently of bench/results/stats/stats.cpp.
inline double numpy_percentile(std::vector<double> s, double q) {
  std::sort(s.begin(), s.end());
  const double pos = q * double(s.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - double(lo));
}

inline void expect_near_rel(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::fabs(want))) << what;
}

// Checks every case of a result document against `cost` (all cases ran the known-cost variant
// with `samples` isolated samples and, when `pipelined` is set, a pipelined regime).
inline void expect_known_answers(const nlohmann::json& doc, const KnownCost& cost, std::size_t samples,
                                 bool pipelined) {
  const auto& cases = doc.at("arbench").at("cases");
  ASSERT_FALSE(cases.empty());
  const auto& benchmarks = doc.at("benchmarks");
  ASSERT_EQ(benchmarks.size(), cases.size());
  const double slowest = cost.slowest_us();
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    ASSERT_EQ(c.at("status"), "ok") << name << ": " << c.at("reason");
    const auto s = c.at("samples_us").get<std::vector<double>>();
    ASSERT_EQ(s.size(), samples) << name;
    for (double x : s) EXPECT_GE(x, slowest) << name << ": a sample below the slowest rank's cost";
    const double median = c.at("median_us");
    std::cout << "[ KNOWN    ] " << name << ": median " << median << " us, pipelined "
              << c.at("pipelined_us") << " us/op (slowest rank " << slowest << " us)\n";
    EXPECT_LT(median, slowest * cost.max_ratio) << name << ": median far above the slowest rank's cost";

    expect_near_rel(median, numpy_percentile(s, 0.5), name + " median_us");
    expect_near_rel(c.at("p50_us"), median, name + " p50_us");
    expect_near_rel(c.at("p10_us"), numpy_percentile(s, 0.1), name + " p10_us");
    expect_near_rel(c.at("p90_us"), numpy_percentile(s, 0.9), name + " p90_us");
    expect_near_rel(c.at("p99_us"), numpy_percentile(s, 0.99), name + " p99_us");

    const double bytes = c.at("bytes");
    const int world = c.at("world");
    const double algbw = bytes / (median * 1e-6) / 1e9;
    const double busbw = algbw * 2.0 * (world - 1) / world;
    expect_near_rel(c.at("algbw_GBps"), algbw, name + " algbw_GBps");
    expect_near_rel(c.at("busbw_GBps"), busbw, name + " busbw_GBps");

    if (pipelined) {
      const double per_op = c.at("pipelined_us");
      EXPECT_GE(per_op, slowest) << name << ": pipelined time per op below the slowest rank's cost";
      EXPECT_LT(per_op, slowest * cost.max_ratio) << name << ": pipelined time per op is not graph time / K";
    }

    bool found = false;
    for (const auto& b : benchmarks) {
      if (b.at("name") != name) continue;
      found = true;
      EXPECT_EQ(b.at("time_unit"), "us") << name;
      expect_near_rel(b.at("real_time"), median, name + " real_time");
      for (const char* k : {"p10_us", "p50_us", "p90_us", "p99_us", "busbw_GBps", "algbw_GBps"})
        expect_near_rel(b.at(k), c.at(k), name + " counter " + k);
      if (pipelined) expect_near_rel(b.at("pipelined_us"), c.at("pipelined_us"), name + " counter pipelined_us");
      EXPECT_EQ(b.at("samples").get<double>(), double(samples)) << name;
    }
    EXPECT_TRUE(found) << name << " has no Google Benchmark entry";
  }
}

}  // namespace arbench::testing
