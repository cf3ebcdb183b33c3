// The doctor's report: a table of the checks (verdict and what was read, within 120 columns), then
// each check's items with the fix, and why it matters; and the JSON of `--json` / `--out`, one
// object per check. Schema in docs/doctor.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/check.hpp"

namespace arbench::doctor {

inline constexpr const char* kDoctorSchema = "arbench-doctor/1";

// `head`: the lines above the table (what was looked at).
std::string render_report(const std::vector<Check>& checks, const std::string& head);

nlohmann::json report_to_json(const std::vector<Check>& checks, const std::string& root);

// The probe's finding in a doctor report: true/false, or nullopt when the probe did not run.
std::optional<bool> pull_beats_push(const nlohmann::json& report);

// `arbench run --doctor FILE`: the report read back (UsageError, exit 2, naming the file when it is
// not one), and what a run records of it in its provenance ("box_findings": the file, when it
// was written, its verdict and pull_beats_push).
nlohmann::json read_doctor_report(const std::string& path);
nlohmann::json box_findings(const nlohmann::json& report, const std::string& path);

}  // namespace arbench::doctor
