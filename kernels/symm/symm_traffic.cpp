// What oneshot-pull, oneshot-push and twoshot move between ranks (arbench/traffic.hpp), from
// their protocols (include/arbench/algo/symm/): M bytes of message, N ranks.
//   oneshot-pull  barrier; every rank loads M from every peer               waits: barrier, one wave
//   oneshot-push  every rank stores M as LL lines (2M) into every peer      waits: one poll wave
//   twoshot       barrier; every rank loads its shard M/N from every peer;  waits: barrier, wave,
//                 barrier; every rank loads every owner's reduced shard            barrier, wave
#include "arbench/traffic_schedules.hpp"
#include "kernels/symm/symm_variant.hpp"

namespace arbench {

Traffic oneshot_pull_traffic(const TrafficQuery& q) {
  return one_schedule(
      q, [&] { return oneshot_schedule("one-shot pull", TrafficDirection::pull, q.c.world, double(q.c.bytes), 2, 1); });
}

Traffic oneshot_push_traffic(const TrafficQuery& q) {
  return one_schedule(q, [&] {
    return oneshot_schedule("one-shot push (LL)", TrafficDirection::push, q.c.world, 2.0 * double(q.c.bytes), 1, 2);
  });
}

Traffic twoshot_traffic(const TrafficQuery& q) {
  const double shard = double(q.c.bytes) / q.c.world;
  return one_schedule(
      q, [&] { return twoshot_schedule("two-shot (reduce-scatter, all-gather; loads)", {}, q.c.world, shard, shard, 1); });
}

}  // namespace arbench
