// The figures of what a case costs a model running beside it (docs/output.md): `sms`, the SMs
// one op takes, and `beside`, the case measured beside a background load (run --beside): their
// JSON (written, read back, validated) and CSV cells. Apart from report.cpp so the two concerns
// stay small.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace arbench {

// Adds `sms` (a count, or null when unknown), `sms_basis`, and `beside` when measured, to case `j`.
void load_figures_to_json(const CaseResult& r, nlohmann::json& j);
// The inverse, for a case read back whole (case_from_json).
void load_figures_from_json(const nlohmann::json& j, CaseResult& r);
// Problems of case `c` (named `w` in messages) against the documented schema, appended to `p`.
void validate_load_figures(const nlohmann::json& c, const std::string& w, std::vector<std::string>& p);

// The CSV's last columns (kCsvHeader): sms, beside_median_us, background_slowdown; empty when unknown.
inline constexpr const char* kLoadCsvColumns = "sms,beside_median_us,background_slowdown";
std::string load_figures_csv(const CaseResult& r);

// The JSON keys these figures own (the reader's known keys).
inline constexpr const char* kLoadFigureKeys[] = {"sms", "sms_basis", "beside"};

}  // namespace arbench
