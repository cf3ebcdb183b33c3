// The console tests' rows: a Google Benchmark run as arbench reports one (median, p10/p90,
// bus bandwidth, pipelined time); a printed table is split into lines by test::lines_of
// (tests/host/text_checks.hpp).
#pragma once

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "tests/host/text_checks.hpp"

namespace arbench::testing {

using BenchRun = benchmark::BenchmarkReporter::Run;

inline BenchRun run_of(const std::string& name, double median_us) {
  BenchRun r;
  r.run_name.function_name = name;
  r.time_unit = benchmark::kMicrosecond;
  r.iterations = 1;
  r.real_accumulated_time = median_us * 1e-6;
  r.counters["p10_us"] = median_us * 0.9;
  r.counters["p90_us"] = median_us * 1.1;
  r.counters["busbw_GBps"] = 12.5;
  r.counters["pipelined_us"] = median_us * 0.8;
  return r;
}

}  // namespace arbench::testing
