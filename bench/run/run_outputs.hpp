// What `arbench run` writes once it ends, also when it ends early: the results JSON (--out) and
// CSV (--csv) of the cases that finished. A run stopped before its last case (Ctrl-C, a device
// error) writes the same files with `arbench.incomplete` in the JSON, so what was measured is
// never lost and no reader mistakes it for a full sweep.
#pragma once

#include <cstddef>
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

}  // namespace arbench
