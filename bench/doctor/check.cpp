#include "doctor/check.hpp"

#include <algorithm>

namespace arbench::doctor {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::ok: return "ok";
    case Verdict::unknown: return "could not read";
    case Verdict::slows: return "slows";
    case Verdict::may_hang: return "may hang";
  }
  return "?";
}

Verdict Check::verdict() const {
  if (items.empty()) return Verdict::unknown;
  Verdict v = Verdict::ok;
  for (const Item& i : items) v = std::max(v, i.verdict);
  return v;
}

Verdict worst(const std::vector<Check>& checks) {
  Verdict v = Verdict::ok;
  for (const Check& c : checks) v = std::max(v, c.verdict());
  return v;
}

int exit_code(Verdict w) {
  switch (w) {
    case Verdict::may_hang: return kExitMayHang;
    case Verdict::slows: return kExitSlows;
    default: return 0;
  }
}

}  // namespace arbench::doctor
