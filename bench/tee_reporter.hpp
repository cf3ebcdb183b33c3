// TeeReporter: hands every Google Benchmark report to several reporters (the console table
// and the JSON reporter whose text we extend), so both come from Google Benchmark's own
// reporters and `--out` needs no `--benchmark_out`.
#pragma once

#include <benchmark/benchmark.h>

#include <vector>

namespace arbench {

class TeeReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit TeeReporter(std::vector<benchmark::BenchmarkReporter*> to) : to_(std::move(to)) {}
  bool ReportContext(const Context& context) override {
    bool ok = true;
    for (auto* r : to_) ok = r->ReportContext(context) && ok;
    return ok;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (auto* r : to_) r->ReportRuns(runs);
  }
  void Finalize() override {
    for (auto* r : to_) r->Finalize();
  }

 private:
  std::vector<benchmark::BenchmarkReporter*> to_;
};

}  // namespace arbench
