// The console tests' rows: a Google Benchmark run as arbench reports one (median, p10/p90,
// bus bandwidth, pipelined time), and a printed table split into lines.
#pragma once

#include <benchmark/benchmark.h>

#include <sstream>
#include <string>
#include <vector>

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

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace arbench::testing
