// The pattern probe's plan; see probe_plan.hpp.
#include "sol/probe_plan.hpp"

#include <algorithm>
#include <set>

#include "arbench/algo/island/island_map.hpp"

namespace arbench::sol {
namespace {

struct NoFault {};  // cross_destinations' policy: the production mapping

PlannedPattern planned(const TrafficPhase& phase, int world) {
  PlannedPattern p{phase.shape, phase.direction, world, {pattern_key(phase.shape, phase.direction, world), {}}};
  const bool pull = phase.direction == TrafficDirection::pull;
  for (const auto& f : phase.flows) p.pattern.flows.push_back({f.from, f.to, pull});
  // The hops measured: the first flow's; a flow between the lowest and the highest rank where the
  // pattern has one (on a PCIe tree the farthest pair, across the root: every all-pairs wait ends
  // with it); and the last flow's (the ring's closing edge). Not every pair: each costs a ping-pong.
  auto add = [&](const TrafficFlow& f) {
    const std::pair<int, int> hop{f.from, f.to};
    for (const auto& h : p.pattern.latency_pairs)
      if (h == hop) return;
    p.pattern.latency_pairs.push_back(hop);
  };
  if (!phase.flows.empty()) {
    add(phase.flows.front());
    for (const auto& f : phase.flows)
      if (std::min(f.from, f.to) == 0 && std::max(f.from, f.to) == world - 1) {
        add(f);
        break;
      }
    add(phase.flows.back());
  }
  return p;
}

}  // namespace

std::string pattern_key(TrafficShape s, TrafficDirection d, int world) {
  return "w" + std::to_string(world) + " " + traffic_shape_name(s) + " " + traffic_direction_name(d);
}

std::vector<PlannedPattern> probe_plan(int ranks, const std::vector<int>& worlds,
                                       const std::map<int, std::vector<int>>& ring_orders,
                                       const std::map<int, std::vector<int>>& islands) {
  std::vector<PlannedPattern> out;
  const std::set<int> sizes(worlds.begin(), worlds.end());
  for (int w : sizes) {
    if (w < 2 || w > ranks) continue;
    const auto ro = ring_orders.find(w);
    const std::vector<int> order = ring_or_identity(ro == ring_orders.end() ? std::vector<int>{} : ro->second, w);
    for (TrafficDirection d : {TrafficDirection::push, TrafficDirection::pull})
      out.push_back(planned(all_pairs_phase("", d, w, 1), w));
    out.push_back(planned(ring_phase("", TrafficDirection::push, order, 1, 1), w));
    out.push_back(planned(chain_phase("", TrafficDirection::push, order, 1, 1), w));
    const auto is = islands.find(w);
    if (is == islands.end() || !algo::island_map_problem(is->second, w).empty()) continue;
    const algo::IslandMap m = algo::make_island_map(is->second, w);
    if (m.islands < 2) continue;
    const std::vector<int> labels = algo::island_labels(m, w);
    for (TrafficDirection d : {TrafficDirection::push, TrafficDirection::pull}) {
      const TrafficPhase inside = island_inside_phase("", d, labels, 1);
      if (!inside.flows.empty()) out.push_back(planned(inside, w));
    }
    std::vector<TrafficFlow> across;
    for (int r = 0; r < w; ++r)
      for (int d = 0; d < w; ++d)
        if ((algo::cross_destinations<NoFault>(m, r) >> d) & 1u) across.push_back({r, d, 1});
    out.push_back(planned(island_across_phase("", TrafficDirection::push, std::move(across)), w));
  }
  return out;
}

}  // namespace arbench::sol
