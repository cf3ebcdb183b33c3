#include "measure/beside/beside_load.hpp"

namespace arbench {

std::optional<BesideKind> parse_beside_kind(const std::string& s) {
  if (s == "compute") return BesideKind::compute;
  if (s == "fma") return BesideKind::fma;
  if (s == "memory") return BesideKind::memory;
  return std::nullopt;
}

const char* beside_kind_name(BesideKind k) {
  switch (k) {
    case BesideKind::compute: return "compute";
    case BesideKind::fma: return "fma";
    case BesideKind::memory: return "memory";
  }
  return "?";
}

}  // namespace arbench
