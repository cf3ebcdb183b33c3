#include "sweep/sizes.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>

namespace arbench {

std::optional<std::size_t> parse_size(std::string_view t) {
  std::size_t value = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || p == t.data()) return std::nullopt;
  std::string suffix;
  for (; p != t.data() + t.size(); ++p) suffix += char(std::toupper(static_cast<unsigned char>(*p)));
  std::size_t mult = 1;
  if (suffix.empty() || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB") mult = std::size_t(1) << 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") mult = std::size_t(1) << 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") mult = std::size_t(1) << 30;
  else return std::nullopt;
  if (value > (~std::size_t(0)) / mult) return std::nullopt;
  return value * mult;
}

std::string human_bytes(double b) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (u < 5 && b >= 1024) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

std::string format_size(std::size_t b) {
  const char* units[] = {"", "K", "M", "G"};
  int u = 0;
  while (u < 3 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    ++u;
  }
  return std::to_string(b) + units[u];
}

}  // namespace arbench
