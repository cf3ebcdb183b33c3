// What `ring` moves between ranks (arbench/traffic.hpp; protocol: include/arbench/algo/ring/):
// 2(N-1) steps, in each every rank stores a 1/N segment of the message (with its flag) into the
// next rank's slot, in the case's ring order. One wait per step, for the previous rank's transfer.
#include "arbench/traffic_schedules.hpp"
#include "kernels/ring/ring_variant.hpp"

namespace arbench {

Traffic ring_traffic(const TrafficQuery& q) {
  const int n = q.c.world;
  return one_schedule(q, [&] {
    return ring_schedule("ring (stores into the next rank)", ring_or_identity(q.ring_order, n), double(q.c.bytes) / n,
                         2 * (n - 1), 1);
  });
}

}  // namespace arbench
