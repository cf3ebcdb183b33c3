#include "settings/catalogue/stack_versions.hpp"

#include <cctype>
#include <regex>

namespace arbench {

std::string Version::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) + tail;
}

std::optional<Version> parse_version(const std::string& s) {
  Version v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  size_t i = 0;
  int n = 0;
  for (; n < 3; ++n) {
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    long long x = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      x = x * 10 + (s[i++] - '0');
      if (x > 1000000) return std::nullopt;
    }
    *parts[n] = static_cast<int>(x);
    // a dot followed by a digit continues the number; anything else ends it
    if (n < 2 && i + 1 < s.size() && s[i] == '.' && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      ++i;
      continue;
    }
    break;
  }
  if (n == 0) return std::nullopt;  // "2" alone is too vague a release
  v.tail = s.substr(i);
  // a tail must not be a malformed number ("2..1", "2.28.") nor contain blanks
  if (!v.tail.empty() && (v.tail[0] == '.' && (v.tail.size() == 1 || v.tail[1] == '.'))) return std::nullopt;
  for (char c : v.tail)
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '=') return std::nullopt;
  return v;
}

std::optional<Version> parse_release(const std::string& s) {
  auto v = parse_version(s);
  // PEP 440's optional parts after the release number, in their order (normalized spellings).
  static const std::regex tail(R"(^((a|b|rc)[0-9]+)?(\.?post[0-9]+)?(\.?dev[0-9]+)?(\+[A-Za-z0-9.]+)?$)");
  if (!v || !std::regex_match(v->tail, tail)) return std::nullopt;
  return v;
}

std::string parse_engine_item(const std::string& item, std::string& name, Version& version) {
  std::string names;
  for (const char* n : kStackEngines) names += (names.empty() ? "" : ", ") + std::string(n);
  const auto eq = item.find('=');
  if (eq == std::string::npos)
    return "'" + item + "' is not NAME=VERSION (e.g. vllm=0.11.0); names: " + names;
  name = item.substr(0, eq);
  bool known = false;
  for (const char* n : kStackEngines) known = known || name == n;
  if (!known) return "'" + item + "': unknown name '" + name + "'; names: " + names;
  const std::string text = item.substr(eq + 1);
  const auto v = parse_release(text);
  if (!v) return "'" + item + "': '" + text + "' is not a release number (e.g. 0.11.0, 1.0.0rc3, 2.9.0+cu128)";
  version = *v;
  return {};
}

std::string nccl_version_problem(const std::string& text) {
  const auto v = parse_version(text);
  if (!v || !v->tail.empty())
    return "'" + text + "' is not an NCCL version X.Y or X.Y.Z (e.g. 2.27.7; python -c 'import torch; "
           "print(torch.cuda.nccl.version())' prints the one torch loads)";
  if (v->major < 2) return "'" + text + "': NCCL releases in use are 2.x; give the version the engine loads";
  return {};
}

}  // namespace arbench
