// TeeReporter: hands every Google Benchmark report to several reporters (the console table
// and the JSON reporter whose text we extend), so both come from Google Benchmark's own
// reporters and `--out` needs no `--benchmark_out`. It also keeps benchmark names the stable
// case keys (docs/output.md): Iterations(1) and UseManualTime() would otherwise append
// "/iterations:1/manual_time" to every name. Cases a stopped run never started (they end with
// kNotRunMessage) reach no reporter: the table and the JSON hold the finished cases only.
#pragma once

#include <benchmark/benchmark.h>

#include <vector>

namespace arbench {

inline constexpr const char* kNotRunMessage = "not run: the run was stopped before this case";

class TeeReporter final : public benchmark::BenchmarkReporter {
 public:
  explicit TeeReporter(std::vector<benchmark::BenchmarkReporter*> to) : to_(std::move(to)) {}
  bool ReportContext(const Context& context) override {
    bool ok = true;
    for (auto* r : to_) ok = r->ReportContext(context) && ok;
    return ok;
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> named;
    for (const auto& run : runs) {
      if (run.error_occurred && run.error_message == kNotRunMessage) continue;
      named.push_back(run);
      named.back().run_name.iterations.clear();
      named.back().run_name.time_type.clear();
    }
    if (named.empty()) return;
    for (auto* r : to_) r->ReportRuns(named);
  }
  void Finalize() override {
    for (auto* r : to_) r->Finalize();
  }

 private:
  std::vector<benchmark::BenchmarkReporter*> to_;
};

}  // namespace arbench
