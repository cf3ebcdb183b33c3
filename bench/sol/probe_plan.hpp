// The pattern probe's plan for the speed-of-light floor: the traffic patterns the schedules of
// arbench's variants run (arbench/traffic.hpp), for every world size the run may use, on GPUs (or
// CPU ranks) 0..w-1 as a run of w ranks uses them. For each world size w:
//   all-pairs push, all-pairs pull   every rank with every other (one-shot, each half of two-shot)
//   ring push                        every rank to the next in the ring order (ring, NCCL's ring)
//   chain push                       neighbours along the ring order, both ways (NCCL's tree)
//   island-inside push and pull,     with two islands or more: every rank with its island, and
//   island-across push               each rank with its partners in the other islands
// Each pattern measures the flag latency of two hops while it runs: its first flow's pair and the
// pair of its flow that crosses farthest (the last flow of a ring, a cross-island flow).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "arbench/traffic.hpp"
#include "topo/pattern.hpp"

namespace arbench::sol {

struct PlannedPattern {
  TrafficShape shape = TrafficShape::all_pairs;
  TrafficDirection direction = TrafficDirection::pull;
  int world = 0;
  topo::Pattern pattern;  // its name is the key: "w8 all-pairs pull"
};

// The key of a pattern: "w<world> <shape> <direction>".
std::string pattern_key(TrafficShape s, TrafficDirection d, int world);

// Every pattern for the world sizes in `worlds` that `ranks` can hold (2 <= w <= ranks); the ring
// order and islands of a world size from `ring_orders` and `islands` (by world size; a size absent
// from `ring_orders` uses 0..w-1, one absent from `islands` or of one island gets no island pattern).
std::vector<PlannedPattern> probe_plan(int ranks, const std::vector<int>& worlds,
                                       const std::map<int, std::vector<int>>& ring_orders,
                                       const std::map<int, std::vector<int>>& islands);

}  // namespace arbench::sol
