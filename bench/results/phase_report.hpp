// The phase timeline in the outputs (docs/output.md, docs/latency-breakdown.md): the JSON
// `phases` object of a case, and the console's per-case breakdown after the table.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/results.hpp"

namespace arbench {

nlohmann::json phases_to_json(const PhaseTimeline& t);
// The inverse, for a case read back (report.hpp case_from_json); throws nlohmann's exceptions on
// a document of another shape.
PhaseTimeline phases_from_json(const nlohmann::json& j);

// One line per case with a timeline: latency, latency after the last arrival (skewed cases) and
// "entry skew · staging · wait for peers · reduce+store · exit skew"; empty when no case has one.
std::string phase_breakdown_table(const std::vector<CaseResult>& results);

}  // namespace arbench
