// Rendering a CompareReport as text (terminal, logs), markdown (PR comments, CI job summaries)
// or JSON (machines: the nightly script's history reads it). The JSON schema is in
// docs/regression.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/compare.hpp"

namespace arbench {

enum class ReportFormat { text, markdown, json };
std::optional<ReportFormat> parse_report_format(std::string_view s);

std::string format_compare(const CompareReport& rep, ReportFormat format);

}  // namespace arbench
