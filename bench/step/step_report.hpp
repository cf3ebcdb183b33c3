// Rendering a StepReport: a table per world size (text for terminals, markdown for PR comments)
// and the JSON `arbench step --out` writes (schema "arbench-step", schema_version 1; documented
// in docs/decode-step.md):
//   { "schema": "arbench-step", "schema_version": 1,
//     "source": { "result", "backend", "timing", "arbench_revision", "fingerprint" },
//     "models": [ { "name", "hidden", "layers", "dtype", "dtype_bytes", "allreduces_per_step",
//                   "step_ms" (null without --step-ms),
//                   "tables": [ { "world", "baseline" (null: none), "baseline_note", "notes": [...],
//                                 "rows": [ { "batch", "draft", "tokens", "message_bytes", "variant",
//                                             "family", "includes_norm", "interpolated",
//                                             "us_per_allreduce", "ms_per_step", "saving_ms",
//                                             "saving_fraction", "tokens_per_s_ceiling",
//                                             "comm_share" } ] } ],     // absent values: null
//                   "ignored": [ "case name: why" ] } ] }
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/compare_report.hpp"  // ReportFormat
#include "step/step.hpp"

namespace arbench {

inline constexpr int kStepSchemaVersion = 1;

// The title lines (the result it comes from, and a warning for CPU timings), printed once above
// the models' sections; then one section per model.
std::string format_step_header(const StepReport& rep, ReportFormat format);
std::string format_step(const StepReport& rep, ReportFormat format);

// The refusal: which sizes are missing, per group, and the `arbench run` line for each.
std::string format_missing(const StepReport& rep, const std::string& prefix = "");

// One model's object of the "models" array.
nlohmann::json step_model_json(const StepReport& rep);

// The whole file for one or more models (all projected from the same result).
nlohmann::json step_file_json(const std::vector<StepReport>& reports);

}  // namespace arbench
