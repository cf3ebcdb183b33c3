// The console table of `arbench run`: one row per case with the figures people read, in units
// that never change within a column, sized to fit 120 columns for the default sweeps:
//
//   allreduce                              median us       p10-p90 us  busbw GB/s  pipelined us  SMs  check
//     oneshot-pull/bf16/gpus:8/bytes:1024       9.10        8.80-9.90        0.20          6.30    1  ok
//
// `SMs`: the SMs one op takes from a model beside it (docs/output.md, "sms"), `-` when unknown.
// Cases are grouped under their family (the full case name is `<family>/<row name>`). A run with
// speed-of-light floors (bench/sol/) gets `% SOL` after `pipelined us`: 100 x the case's floor /
// its median, `-` without a floor, a `!` after a case faster than its floor (a timing or pattern
// error, never a success). A run with
// a low-precision (lossy) case gets one more column before `check`, `rms err %`: the case's
// rms_rel_err in percent (docs/method.md, "Accuracy"), `exact` on the exact variants' rows. The
// full counter set stays in the JSON and CSV; `--wide` prints Google Benchmark's own table
// (WideConsoleReporter) instead.
//
// Google Benchmark's context block (CPU, caches, load, and "Library was built as DEBUG" with
// Debian's libbenchmark) is about its own timers. arbench times every sample with its own clocks
// (CUDA events, or steady_clock on the host backend) and hands Google Benchmark the median as
// manual time, so that warning does not apply: neither reporter prints it.
#pragma once

#include <benchmark/benchmark.h>

#include <set>
#include <string>
#include <vector>

namespace arbench {

class ConsoleTable final : public benchmark::BenchmarkReporter {
 public:
  // `case_names`: every case that will run (they size the case column); `checked`: whether
  // correctness checks are on (else the check column says `unchecked`); `lossy_cases`: the names
  // of the cases whose variant is lossy (Variant::lossy()): when any, the error column is shown.
  // `floors`: the run computes speed-of-light floors (the `% SOL` column).
  ConsoleTable(const std::vector<std::string>& case_names, bool checked, std::set<std::string> lossy_cases = {},
               bool floors = false);
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;

  static constexpr int kWidthLimit = 120;

 private:
  void print_header(const std::string& family);
  std::string error_cell(const Run& run) const;
  std::string sol_cell(const Run& run) const;
  std::string sms_cell(const Run& run) const;
  std::size_t name_width_ = 0;
  bool checked_;
  std::set<std::string> lossy_;  // full case names
  bool floors_ = false;
  std::string family_;  // of the last row printed
};

// Google Benchmark's ConsoleReporter (every counter, as arbench printed before), less the
// DEBUG-build warning of its context block.
class WideConsoleReporter final : public benchmark::ConsoleReporter {
 public:
  using benchmark::ConsoleReporter::ConsoleReporter;
  bool ReportContext(const Context& context) override;
};

}  // namespace arbench
