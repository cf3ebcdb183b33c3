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
  if (!phase.flows.empty()) {
    // The first flow's hop, and the last flow's: the ring's closing edge, the farthest pair of the
    // others (flows go in rank order, so the last joins the highest rank to the one below it).
    const auto& a = phase.flows.front();
    const auto& b = phase.flows.back();
    p.pattern.latency_pairs.push_back({a.from, a.to});
    if (b.from != a.from || b.to != a.to) p.pattern.latency_pairs.push_back({b.from, b.to});
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
