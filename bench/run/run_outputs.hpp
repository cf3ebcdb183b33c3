// What `arbench run` writes once it ends, also when it ends early: the results JSON (--out) and
// CSV (--csv) of the cases that finished. A run stopped before its last case (Ctrl-C, a device
// error) writes the same files with `arbench.incomplete` in the JSON, so what was measured is
// never lost and no reader mistakes it for a full sweep.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace arbench {

struct Incomplete {
  std::string reason;                 // e.g. "interrupted (Ctrl-C)"
  std::size_t cases_planned = 0;      // cases the run meant to run
  std::vector<std::string> not_run;   // their names, minus the finished ones
};

struct FinishedRun {
  std::string backend;
  nlohmann::json provenance;  // to_json(Provenance), topology included
  nlohmann::json config;      // config_to_json(RunConfig)
  std::string gbench_json;    // Google Benchmark's JSON reporter text ("" when none)
  std::vector<CaseResult> results;
  std::vector<Skipped> skipped;
  std::optional<Incomplete> incomplete;
};

// The result document (docs/output.md); `arbench.incomplete` = {reason, cases_planned,
// cases_run, not_run} when run.incomplete is set.
nlohmann::json result_document(const FinishedRun& run);

// Writes `out_json` and `out_csv` (each when not empty, atomically) and says so on `log`.
void write_run_outputs(const FinishedRun& run, const std::string& out_json, const std::string& out_csv,
                       std::ostream& log);

// The result files kept up to date while the run goes (process 0): after a case, the finished
// cases are written, marked incomplete ("the run had not reached its end ..."), at most every
// kEvery_s seconds and always after a failed case; write_now() writes them at once with a reason
// (the last words of a process that ends on a path that never returns: a watchdog that gave up on
// a hung NCCL call, a World that aborts the run). So every way out of a run leaves the finished
// cases, even a kill. The complete files are written at the end by write_run_outputs. Thread-safe.
class ResultCheckpoint {
 public:
  static constexpr double kEvery_s = 2.0;
  // `base`: the run's provenance, config, skipped cases; `planned`: the names of the cases to run.
  // Inactive (writes nothing) when `active` is false (processes other than 0, no --out/--csv).
  ResultCheckpoint(FinishedRun base, std::string out_json, std::string out_csv, std::vector<std::string> planned,
                   bool active);
  void add(const CaseResult& r);
  // `say`: where the "wrote ..." lines go (none by default: a checkpoint is silent).
  void write_now(const std::string& reason, std::ostream* say = nullptr);

 private:
  void write_locked(const std::string& reason, std::ostream* say = nullptr);

  std::mutex mu_;
  FinishedRun run_;
  std::string out_json_, out_csv_;
  std::vector<std::string> planned_;
  bool active_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace arbench
