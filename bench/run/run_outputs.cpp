#include "run/run_outputs.hpp"

#include "results/report.hpp"

#include <cstdio>
#include <sstream>

namespace arbench {

nlohmann::json result_document(const FinishedRun& run) {
  nlohmann::json cases = nlohmann::json::array(), skips = nlohmann::json::array();
  for (const auto& r : run.results) cases.push_back(case_to_json(r));
  for (const auto& s : run.skipped) skips.push_back({{"name", s.c.name()}, {"reason", s.reason}});
  nlohmann::json arb = {{"schema_version", kSchemaVersion},
                        {"provenance", run.provenance},
                        {"config", run.config},
                        {"cases", cases},
                        {"skipped", skips}};
  if (run.incomplete)
    arb["incomplete"] = {{"reason", run.incomplete->reason},
                         {"cases_planned", run.incomplete->cases_planned},
                         {"cases_run", run.results.size()},
                         {"not_run", run.incomplete->not_run}};
  return merge_result_json(run.gbench_json, arb);
}

void write_run_outputs(const FinishedRun& run, const std::string& out_json, const std::string& out_csv,
                       std::ostream& log) {
  const char* partial = run.incomplete ? " (incomplete: the finished cases only)" : "";
  if (!out_json.empty()) {
    write_file_atomically(out_json, result_document(run).dump(2) + "\n");
    log << "arbench: wrote " << out_json << partial << "\n";
  }
  if (!out_csv.empty()) {
    write_file_atomically(out_csv, results_csv(run.results, run.backend));
    log << "arbench: wrote " << out_csv << partial << "\n";
  }
}

ResultCheckpoint::ResultCheckpoint(FinishedRun base, std::string out_json, std::string out_csv,
                                   std::vector<std::string> planned, bool active)
    : run_(std::move(base)), out_json_(std::move(out_json)), out_csv_(std::move(out_csv)), planned_(std::move(planned)),
      active_(active && (!out_json_.empty() || !out_csv_.empty())) {}

void ResultCheckpoint::add(const CaseResult& r) {
  std::lock_guard lk(mu_);
  run_.results.push_back(r);
  const auto now = std::chrono::steady_clock::now();
  if (!r.ok || std::chrono::duration<double>(now - last_).count() >= kEvery_s)
    write_locked("the run had not reached its end when this file was written (it is rewritten as cases finish: a "
                 "run that ended early, killed or aborted, leaves the cases that finished)");
}

void ResultCheckpoint::write_now(const std::string& reason, std::ostream* say) {
  std::lock_guard lk(mu_);
  write_locked(reason, say);
}

void ResultCheckpoint::write_locked(const std::string& reason, std::ostream* say) {
  last_ = std::chrono::steady_clock::now();
  if (!active_) return;
  run_.incomplete = Incomplete{reason, planned_.size(), {}};
  for (std::size_t i = run_.results.size(); i < planned_.size(); ++i) run_.incomplete->not_run.push_back(planned_[i]);
  try {
    std::ostringstream quiet;
    write_run_outputs(run_, out_json_, out_csv_, say != nullptr ? *say : quiet);
  } catch (const std::exception& e) {  // a checkpoint never ends the run; the final write reports
    std::fprintf(stderr, "arbench: could not write the finished cases so far: %s\n", e.what());
  }
}

}  // namespace arbench
