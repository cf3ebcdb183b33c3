// Case names: build and parse the stable benchmark keys (docs/output.md).
#include "arbench/core/case.hpp"

#include <charconv>
#include <vector>

namespace arbench {

std::optional<Family> parse_family(std::string_view s) {
  if (s == "allreduce") return Family::allreduce;
  if (s == "allreduce_rmsnorm") return Family::allreduce_rmsnorm;
  return std::nullopt;
}

std::string Case::name() const {
  std::string n = std::string(family_name(family)) + "/" + variant + "/" + std::string(dtype_name(dtype)) +
                  "/gpus:" + std::to_string(world);
  if (family == Family::allreduce)
    n += "/bytes:" + std::to_string(bytes);
  else
    n += "/tokens:" + std::to_string(tokens) + "/hidden:" + std::to_string(hidden);
  if (in_place) n += "/inplace";
  if (skew_us > 0) {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, skew_us);  // shortest round trip: 2, 0.5
    n += "/skew:" + std::string(buf, ec == std::errc() ? end : buf);
  }
  if (cold_cache) n += "/cold";  // absent for the default (hot): older names stay valid
  if (!symm.empty()) n += "/symm:" + symm;
  return n;
}

namespace {

// Split on '/', but not inside [...] (variant configurations such as `nccl[ring/ll]`).
std::vector<std::string_view> split_name(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[') ++depth;
    if (s[i] == ']') --depth;
    if (s[i] == '/' && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

template <class T>
bool parse_field(std::string_view part, std::string_view key, T& out) {
  if (part.substr(0, key.size()) != key) return false;
  auto v = part.substr(key.size());
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && p == v.data() + v.size() && !v.empty();
}

}  // namespace

std::optional<Case> Case::parse(std::string_view name, std::string* why) {
  auto fail = [&](std::string w) -> std::optional<Case> {
    if (why) *why = "'" + std::string(name) + "': " + std::move(w);
    return std::nullopt;
  };
  auto parts = split_name(name);
  if (parts.size() < 5) return fail("expected family/variant/dtype/gpus:N/bytes:B");
  Case c;
  auto fam = parse_family(parts[0]);
  if (!fam) return fail("unknown family '" + std::string(parts[0]) + "'");
  c.family = *fam;
  if (parts[1].empty()) return fail("empty variant");
  c.variant = std::string(parts[1]);
  auto dt = parse_dtype(parts[2]);
  if (!dt) return fail("unknown dtype '" + std::string(parts[2]) + "'");
  c.dtype = *dt;
  if (!parse_field(parts[3], "gpus:", c.world) || c.world < 1) return fail("bad 'gpus:N' field");
  std::size_t next = 4;
  if (c.family == Family::allreduce) {
    if (!parse_field(parts[next++], "bytes:", c.bytes)) return fail("bad 'bytes:B' field");
  } else {
    if (parts.size() < 6 || !parse_field(parts[4], "tokens:", c.tokens) ||
        !parse_field(parts[5], "hidden:", c.hidden))
      return fail("expected tokens:T/hidden:H");
    next = 6;
    c.bytes = std::size_t(c.tokens) * std::size_t(c.hidden) * dtype_size(c.dtype);
  }
  if (next < parts.size() && parts[next] == "inplace") {
    c.in_place = true;
    ++next;
  }
  if (next < parts.size() && parts[next].substr(0, 5) == "skew:") {
    if (!parse_field(parts[next], "skew:", c.skew_us) || !(c.skew_us > 0))
      return fail("bad 'skew:US' field (a positive number of microseconds)");
    ++next;
  }
  if (next < parts.size() && parts[next] == "cold") {
    c.cold_cache = true;
    ++next;
  }
  if (next < parts.size() && parts[next].substr(0, 5) == "symm:") {
    c.symm = std::string(parts[next].substr(5));
    if (c.symm != "cuda" && c.symm != "nccl") return fail("bad 'symm:PROVIDER' field (cuda or nccl)");
    ++next;
  }
  if (next != parts.size()) return fail("unexpected trailing field '" + std::string(parts[next]) + "'");
  return c;
}

double algbw_gbps(std::size_t bytes, double seconds) {
  return seconds > 0 ? double(bytes) / seconds / 1e9 : 0.0;
}

double busbw_gbps(std::size_t bytes, double seconds, int world) {
  return algbw_gbps(bytes, seconds) * (world > 0 ? 2.0 * (world - 1) / world : 0.0);
}

}  // namespace arbench
