#include "sweep/memory_check.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include "arbench/core/errors.hpp"
#include "sweep/sizes.hpp"

namespace arbench {

std::optional<std::size_t> available_host_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::size_t kib = 0;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

void check_memory_fits(const std::vector<Case>& cases, const std::function<std::size_t(const Case&)>& need,
                       std::size_t available) {
  const Case* worst = nullptr;
  std::size_t worst_bytes = 0, too_big = 0;
  for (const Case& c : cases) {
    const std::size_t b = need(c);
    if (b > available) ++too_big;
    if (b > worst_bytes) worst_bytes = b, worst = &c;
  }
  if (too_big == 0) return;
  std::ostringstream msg;
  msg << too_big << " of " << cases.size() << " cases do not fit in memory: the largest, " << worst->name()
      << ", needs about " << human_bytes(double(worst_bytes)) << " (" << worst->world
      << " ranks' buffers and scratch, and the checking copies) and " << human_bytes(double(available))
      << " is available; lower --max-bytes (fused family: --tokens or --hidden) or --gpus";
  throw UsageError(msg.str());
}

}  // namespace arbench
