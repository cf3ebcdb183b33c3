// Errors as people read them: CLI11's parse errors in arbench's words (CLI11 2.1 says of an option
// given twice "--timeout: At Most 1 required but received 2"; arbench says what to do), and every
// error's lines fitted to the console's 120 columns.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace arbench::cli {

// The text of `e` for `arbench: error: ...` (`sub`: the subcommand, for "see arbench SUB --help"),
// wrapped to 120 columns (a single word longer than that stands alone on its line).
std::string parse_error_text(const CLI::ParseError& e, const std::string& sub);

// `prefix` + `what` (an error, maybe of several lines) with each line fitted to 120 columns:
// broken at spaces, continuation lines indented by 4; ends with a newline.
std::string error_text(const std::string& prefix, const std::string& what);

}  // namespace arbench::cli
