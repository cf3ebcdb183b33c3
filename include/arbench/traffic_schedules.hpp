// The schedules the variants' traffic is written from (arbench/traffic.hpp): one-shot, two-shot,
// ring and chain, each with the phases, waits and wire ratio its kind has. The variants' own
// traffic functions (kernels/<family>/*_traffic.cpp) pick one with their bytes and count.
#pragma once

#include <string>
#include <vector>

#include "arbench/traffic.hpp"

namespace arbench {

// No traffic for fewer than two ranks; nullopt-like: `why_none` set when q has one rank.
bool one_rank(const TrafficQuery& q, Traffic* out);

// The traffic of the one schedule `make()` builds, or none for one rank (one_rank).
template <class Make>
Traffic one_schedule(const TrafficQuery& q, Make make) {
  Traffic t;
  if (!one_rank(q, &t)) t.schedules.push_back(make());
  return t;
}

// One-shot: every rank gets `wire_bytes` from every peer at once (pull: loads after a barrier;
// push: stores, e.g. LL lines, no barrier).
TrafficSchedule oneshot_schedule(std::string name, TrafficDirection d, int world, double wire_bytes, int round_trips,
                                 double wire_ratio);

// Two-shot: a reduce-scatter (every rank gets its shard, `shard_bytes`, from every peer) then an
// all-gather (every rank gets every owner's reduced shard, `gather_bytes`), each all-pairs; each
// half with its own direction and waits (a barrier and a wave of loads: 2; stores then a barrier: 1).
struct TwoShotHalves {
  TrafficDirection scatter = TrafficDirection::pull, gather = TrafficDirection::pull;
  int scatter_waits = 2, gather_waits = 2;
};
TrafficSchedule twoshot_schedule(std::string name, const TwoShotHalves& halves, int world, double shard_bytes,
                                 double gather_bytes, double wire_ratio);

// A ring of `order`: 2(N-1) steps, each rank pushing a 1/N segment (`segment_bytes`) to the next.
TrafficSchedule ring_schedule(std::string name, const std::vector<int>& order, double segment_bytes, int round_trips,
                              double wire_ratio);

// A chain along `order` (NCCL's tree within one node: reduce up, broadcast down, pipelined): every
// link carries the message once each way (`message_wire_bytes`), over 2(N-1) steps.
TrafficSchedule chain_schedule(std::string name, const std::vector<int>& order, double message_wire_bytes,
                               int round_trips, double wire_ratio);

}  // namespace arbench
