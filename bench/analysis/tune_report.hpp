// Rendering a TuneReport: a human table (text or markdown) and the dispatch-table JSON.
// Dispatch table (schema_version 1; documented in docs/regression.md):
//   { "schema": "arbench-dispatch-table", "schema_version": 1,
//     "source": { "result", "fingerprint", "backend", "timing", "arbench_revision", "alpha" },
//     "tables": [ { "family", "dtype", "world", "axis": "bytes"|"tokens", "in_place",
//                   "hidden" (fused only), "islands" (when island variants ran: "0-3,4-7"),
//                   "rules": [ { "max": <size or null>, "variant" } ],   // first rule with
//                                                                        // size <= max wins
//                   "points": [ { "size", "best", "best_us", "runner_up", "runner_up_us",
//                                 "margin", "p_value", "significant", "candidates" } ],
//                   "crossovers": [ { "from", "to", "after", "before" } ] } ] }
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "analysis/compare_report.hpp"  // ReportFormat
#include "analysis/tune.hpp"

namespace arbench {

inline constexpr int kDispatchTableSchemaVersion = 1;

nlohmann::json dispatch_table_json(const TuneReport& rep);

// Text or markdown (json is the dispatch table itself).
std::string format_tune(const TuneReport& rep, ReportFormat format);

// "64 KiB" for bytes, "16" for tokens.
std::string format_size(std::uint64_t size, const std::string& axis);

}  // namespace arbench
