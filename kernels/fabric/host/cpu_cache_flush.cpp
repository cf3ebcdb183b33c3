// --cache cold on the host fabrics; see cpu_cache_flush.hpp.
#include "kernels/fabric/host/cpu_cache_flush.hpp"

#include <cstdio>
#include <cstring>
#include <string>

namespace arbench {

std::size_t last_level_cache_bytes() {
  std::size_t best = 0;
  int best_level = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    int level = 0;
    char unit = 0;
    std::size_t size = 0;
    std::FILE* fl = std::fopen((dir + "level").c_str(), "r");
    std::FILE* fs = std::fopen((dir + "size").c_str(), "r");
    const bool ok = fl && fs && std::fscanf(fl, "%d", &level) == 1 && std::fscanf(fs, "%zu%c", &size, &unit) >= 1;
    if (fl) std::fclose(fl);
    if (fs) std::fclose(fs);
    if (!ok) continue;
    if (unit == 'K') size <<= 10;
    if (unit == 'M') size <<= 20;
    if (level > best_level || (level == best_level && size > best)) best = size, best_level = level;
  }
  return best > 0 ? best : std::size_t(32) << 20;
}

void CpuCacheFlush::prepare() {
  if (buffer_.empty()) buffer_.assign(2 * last_level_cache_bytes(), 0);
}

void CpuCacheFlush::write_share(int part, int parts) {
  prepare();
  const std::size_t share = buffer_.size() / std::size_t(parts);
  std::memset(buffer_.data() + share * std::size_t(part), 0x5a, share);
}

}  // namespace arbench
