// What the fused family moves between ranks (arbench/traffic.hpp); M = tokens x hidden x dtype.
// unfused-oneshot and fused-oneshot move oneshot-pull's traffic (symm_traffic.cpp); unfused-nccl
// NCCL's (nccl_traffic.cpp); fused-twoshot (include/arbench/algo/fused/fused_twoshot.hpp):
//   barrier; every rank loads its rows' shard (M/N) from every peer; barrier; every rank loads every
//   owner's r and y (2M/N)                                 waits: barrier, wave, barrier, wave
#include "arbench/traffic_schedules.hpp"
#include "kernels/fused/fused_variant.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"

namespace arbench {

Traffic unfused_nccl_traffic(const TrafficQuery& q) { return nccl_traffic(q); }

Traffic fused_twoshot_traffic(const TrafficQuery& q) {
  const double shard = double(q.c.bytes) / q.c.world;
  return one_schedule(q, [&] {
    return twoshot_schedule("fused two-shot (rows reduce-scattered; r and y all-gathered)", {}, q.c.world, shard,
                            2 * shard, 1);
  });
}

}  // namespace arbench
