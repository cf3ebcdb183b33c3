// What the host fabrics (host_fabric: CPU threads; shm_fabric: one process per rank) share: one op
// of a rank on the calling thread and its time; and the median every fabric's pipelined regime
// reports.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "arbench/fabric.hpp"

namespace arbench {

// Both phases of one op of `rank` (fabric.hpp RankOp). The rank's own launch has finished when
// after() starts: twins run synchronously.
inline void run_host_op(const RankOp& op, int rank) {
  op.launch(rank, nullptr);
  if (op.after) op.after(rank, nullptr);
}

// A steady_clock time point in seconds (one clock for every thread and process of a machine).
inline double steady_seconds(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// The upper median (0 when empty), as the GPU fabrics report it.
inline double upper_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace arbench
