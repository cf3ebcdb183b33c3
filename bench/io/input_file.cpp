#include "io/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what, const std::string& expected) {
  throw UsageError(path + ": " + what + "; expected " + expected);
}

// A NUL byte or bytes that are not UTF-8 in the first 4 KiB: an executable, an image, a
// compressed file. JSON is UTF-8 text (RFC 8259).
bool looks_binary(const std::string& s) {
  const std::size_t n = std::min<std::size_t>(s.size(), 4096);
  for (std::size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0) return true;
    int follow = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (follow < 0) return true;
    for (int k = 1; k <= follow; ++k) {
      if (i + std::size_t(k) >= n) return false;  // cut by the window, not by the file
      if ((static_cast<unsigned char>(s[i + std::size_t(k)]) >> 6) != 0x2) return true;
    }
    i += std::size_t(follow) + 1;
  }
  return false;
}

}  // namespace

nlohmann::json read_json_input(const std::string& path, const std::string& expected) {
  if (path.empty()) throw UsageError("an empty file name; expected " + expected);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) fail(path, "no such file", expected);
  if (fs::is_directory(st)) fail(path, "a folder, not a file", expected);
  if (!fs::is_regular_file(st)) fail(path, "not a regular file (a device, a pipe or a socket)", expected);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno), expected);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  if (s.find_first_not_of(" \t\r\n") == std::string::npos) fail(path, "the file is empty", expected);
  if (looks_binary(s)) fail(path, "a binary file, not JSON text", expected);
  try {
    return nlohmann::json::parse(s);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    fail(path, "not valid JSON (" + what + "); a truncated file usually means the command that wrote it was "
               "interrupted: write it again",
         expected);
  }
}

std::string describe_document(const nlohmann::json& doc) {
  if (!doc.is_object()) return {};
  if (doc.contains("arbench") || doc.contains("benchmarks")) return "a result JSON written by `arbench run`";
  const std::string schema = doc.contains("schema") && doc.at("schema").is_string() ? doc.at("schema").get<std::string>()
                                                                                     : std::string();
  if (schema.rfind("arbench-topo", 0) == 0) return "a topology file written by `arbench topo --out`";
  if (schema.rfind("arbench-links", 0) == 0) return "a links object written by `arbench topo --out`";
  if (schema == "arbench-dispatch-table") return "a dispatch table written by `arbench tune --out`";
  if (schema == "arbench-step") return "a step projection written by `arbench step --out`";
  if (schema == "arbench-compare") return "a comparison written by `arbench compare --format json`";
  if (schema.rfind("arbench-doctor", 0) == 0) return "a doctor report written by `arbench doctor --out`";
  if (doc.contains("sets") && doc.contains("about")) return "published reference figures (results/reference/)";
  return {};
}

std::string wrong_document(const std::string& path, const nlohmann::json& doc, const std::string& expected,
                           const std::string& fallback) {
  const std::string what = describe_document(doc);
  if (!what.empty()) return path + ": this is " + what + "; expected " + expected;
  return path + ": " + fallback + "; expected " + expected;
}

}  // namespace arbench
