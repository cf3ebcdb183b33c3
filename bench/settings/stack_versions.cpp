#include "settings/stack_versions.hpp"

#include <cctype>

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

}  // namespace arbench
