// Reports: the result JSON (Google Benchmark's schema + an `arbench` object), the CSV, and
// atomic file writing. The schema is documented in docs/output.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/provenance.hpp"
#include "results/results.hpp"

namespace arbench {

inline constexpr int kSchemaVersion = 1;

nlohmann::json case_to_json(const CaseResult& r);
// The `arbench` object: schema version, provenance, the run's configuration (run/run_config.hpp:
// config_to_json), per-case results and samples.
nlohmann::json arbench_object(const Provenance& p, const nlohmann::json& config, const std::vector<CaseResult>& results,
                              const std::vector<Skipped>& skipped);
// Google Benchmark's JSON text with the `arbench` object added.
nlohmann::json merge_result_json(const std::string& gbench_json, const nlohmann::json& arbench);

// One line per case with its key figures (schema: docs/output.md).
std::string results_csv(const std::vector<CaseResult>& results, const std::string& backend);

// Writes `content` to a temporary file beside `path`, then renames it over `path`, so readers
// never see half a file. Throws UsageError naming the path when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);
// Throws UsageError when `path` cannot be created (checked before a long run starts).
void check_writable(const std::string& path, const std::string& option);

// Problems with a result document against the documented schema (empty = valid).
std::vector<std::string> validate_result_json(const nlohmann::json& doc);

}  // namespace arbench
