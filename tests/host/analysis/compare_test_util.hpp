// What the compare tests (test_compare*.cpp) share: compare, its report and the errors it throws
// (caught by test::thrown), and the synthetic result files they compare (synthetic_result.hpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "analysis/compare_report.hpp"
#include "arbench/core/errors.hpp"
#include "tests/host/results/synthetic_result.hpp"
#include "tests/host/thrown.hpp"

namespace arbench::testing {

// A synthetic result document as compare reads it from the file `label`.
inline ResultFile as_file(const nlohmann::json& j, const std::string& label) { return parse_result_json(j, label); }

}  // namespace arbench::testing
