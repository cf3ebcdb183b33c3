// Reports: the result JSON (Google Benchmark's schema + an `arbench` object), the CSV, and
// atomic file writing. The schema is documented in docs/output.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace arbench {

inline constexpr int kSchemaVersion = 1;

nlohmann::json case_to_json(const CaseResult& r);
// The inverse: a case of a result document read back whole (a child process's results, folded
// into its parent's run: bench/run/process/env_child.hpp). Throws UsageError naming `where` when `j` is
// not a case of this schema.
CaseResult case_from_json(const nlohmann::json& j, const std::string& where);
// Google Benchmark's JSON text with the `arbench` object added.
nlohmann::json merge_result_json(const std::string& gbench_json, const nlohmann::json& arbench);

// One line per case with its key figures (columns: docs/output.md). Failed cases have a status
// `failed`, the reason, and empty timing cells; the fused family fills max_ulp_error and, on
// fused variants, speedup_vs_unfused and fusion_saved_us (results/fusion_summary.hpp); noise_pct is
// the median's 95% CI width (empty when unknown), device_state the abnormal-state marker (empty
// when normal or not recorded); max_abs_err and rms_rel_err the error figures of a lossy
// (low-precision) variant's case, empty for exact variants; sol_us and pct_of_sol the case's
// speed-of-light floor and 100 x floor / median (bench/sol/), empty without a floor; sms the SMs one
// op takes, beside_median_us and background_slowdown the figures of run --beside
// (results/load_figures.hpp), empty when unknown or not measured.
inline constexpr const char* kCsvHeader =
    "name,family,variant,dtype,world,bytes,tokens,hidden,in_place,backend,status,reason,median_us,p10_us,p90_us,"
    "p99_us,pipelined_us,algbw_GBps,busbw_GBps,samples,noise_pct,wrong_elements,max_ulp_error,speedup_vs_unfused,"
    "fusion_saved_us,device_state,max_abs_err,rms_rel_err,sol_us,pct_of_sol,sms,beside_median_us,background_slowdown";

// The `sol` object of a case (docs/output.md) and its inverse.
nlohmann::json sol_to_json(const SolFloor& f, bool below_floor);
SolFloor sol_from_json(const nlohmann::json& j);
std::string results_csv(const std::vector<CaseResult>& results, const std::string& backend);

// Writes `content` to a temporary file beside `path`, then renames it over `path`, so readers
// never see half a file. Throws UsageError naming the path when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

// Problems with a result document against the documented schema (empty = valid).
std::vector<std::string> validate_result_json(const nlohmann::json& doc);

}  // namespace arbench
