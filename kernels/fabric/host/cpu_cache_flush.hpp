// CpuCacheFlush: --cache cold on the host fabrics. Writing a buffer twice the size of the CPU's
// last-level cache leaves none of an op's buffers in any cache level of the writing cores (as
// nvbench's L2 flush does on a GPU). The buffer is allocated on the first flush.
#pragma once

#include <cstddef>
#include <vector>

namespace arbench {

// Size of the largest (last-level) CPU cache, from sysfs; 32 MiB when it cannot be read.
std::size_t last_level_cache_bytes();

class CpuCacheFlush {
 public:
  // Writes part `part` of `parts` equal parts of the buffer: each rank's thread (HostFabric) or
  // process (ShmFabric) writes its own share, so the shared last-level cache and every rank's
  // private caches end up holding the buffer instead of the op's inputs. Allocates on first use
  // (call it from one thread first, or size it with prepare()).
  void write_share(int part, int parts);
  void prepare();

 private:
  std::vector<unsigned char> buffer_;
};

}  // namespace arbench
