// RankBuffers that can say where their memory sits, for the result: the host-mapped mailboxes
// of the island variants record each rank's NUMA node (numa_memory.hpp). A variant asks with
// dynamic_cast, so the buffers that have nothing to say need not know of it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "arbench/fabric.hpp"

namespace arbench {

class PlacedBuffers : public RankBuffers {
 public:
  // (key, value) pairs for the case's settings, e.g. {"mailbox_numa_nodes", "0,0,0,0,1,1,1,1"}.
  virtual std::vector<std::pair<std::string, std::string>> placement() const = 0;
};

// The placement of `b` when it has one; else nothing.
inline std::vector<std::pair<std::string, std::string>> placement_of(const RankBuffers* b) {
  const auto* placed = dynamic_cast<const PlacedBuffers*>(b);
  return placed != nullptr ? placed->placement() : std::vector<std::pair<std::string, std::string>>{};
}

}  // namespace arbench
