#include "run/run_outputs.hpp"

#include "results/report.hpp"

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

}  // namespace arbench
