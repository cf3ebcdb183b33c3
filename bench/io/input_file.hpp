// Reading a JSON file the user named, with one message per way it can be wrong (README.md).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace arbench {

// Reads `path` as JSON. Throws UsageError("PATH: what is wrong; expected EXPECTED") when it does
// not exist, is a folder or another non-file, is binary, is empty or is not valid JSON.
// `expected` says what the command wants, e.g. "a result JSON written by `arbench run`".
nlohmann::json read_json_input(const std::string& path, const std::string& expected);

// What an arbench document is, by its "schema" (or shape), e.g. "a dispatch table written by
// `arbench tune --out`"; empty when it is none of arbench's own outputs.
std::string describe_document(const nlohmann::json& doc);

// The message for a JSON document of the wrong kind: "PATH: this is <what it is>; expected
// <expected>" when it is another arbench output, else "PATH: <fallback>; expected <expected>".
std::string wrong_document(const std::string& path, const nlohmann::json& doc, const std::string& expected,
                           const std::string& fallback);

}  // namespace arbench
