// The schedules the variants' traffic is written from; see arbench/traffic_schedules.hpp.
#include "arbench/traffic_schedules.hpp"

namespace arbench {

bool one_rank(const TrafficQuery& q, Traffic* out) {
  if (q.c.world >= 2) return false;
  *out = Traffic{{}, "one rank: nothing moves between ranks"};
  return true;
}

TrafficSchedule oneshot_schedule(std::string name, TrafficDirection d, int world, double wire_bytes, int round_trips,
                                 double wire_ratio) {
  const char* what = d == TrafficDirection::pull ? "every rank loads every peer's message"
                                                 : "every rank stores its message into every peer";
  return {std::move(name), {all_pairs_phase(what, d, world, wire_bytes)}, round_trips, wire_ratio};
}

TrafficSchedule twoshot_schedule(std::string name, const TwoShotHalves& halves, int world, double shard_bytes,
                                 double gather_bytes, double wire_ratio) {
  TrafficPhase scatter = all_pairs_phase("reduce-scatter: every rank gets its shard of every peer's message",
                                         halves.scatter, world, shard_bytes);
  scatter.waits = halves.scatter_waits;
  TrafficPhase gather =
      all_pairs_phase("all-gather: every rank gets every owner's reduced shard", halves.gather, world, gather_bytes);
  gather.waits = halves.gather_waits;
  return {std::move(name), {std::move(scatter), std::move(gather)}, halves.scatter_waits + halves.gather_waits,
          wire_ratio};
}

TrafficSchedule ring_schedule(std::string name, const std::vector<int>& order, double segment_bytes, int round_trips,
                              double wire_ratio) {
  const int world = int(order.size());
  return {std::move(name),
          {ring_phase("2(N-1) steps: every rank pushes a 1/N segment to the next", TrafficDirection::push, order,
                      2 * (world - 1), segment_bytes)},
          round_trips,
          wire_ratio};
}

TrafficSchedule chain_schedule(std::string name, const std::vector<int>& order, double message_wire_bytes,
                               int round_trips, double wire_ratio) {
  const int world = int(order.size());
  const int steps = 2 * (world - 1);
  return {std::move(name),
          {chain_phase("reduce up the chain, broadcast down, pipelined: every link carries the message each way",
                       TrafficDirection::push, order, steps, message_wire_bytes / steps)},
          round_trips,
          wire_ratio};
}

}  // namespace arbench
