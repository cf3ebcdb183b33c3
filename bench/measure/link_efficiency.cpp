#include "measure/link_efficiency.hpp"

#include "arbench/algo/ring/ring_order.hpp"

namespace arbench {

std::vector<std::string> rank_walk(const CaseResult& r, const std::vector<std::string>& bus_ids) {
  const int world = r.c.world;
  if (world > int(bus_ids.size())) return {};
  std::vector<std::string> walk(bus_ids.begin(), bus_ids.begin() + world);
  for (const auto& [key, value] : r.settings) {
    if (key != "ring_order") continue;
    const auto order = algo::parse_ring_order_text(value);
    if (!order || !algo::ring_order_problem(*order, world).empty()) continue;
    std::vector<std::string> ordered;
    for (int rank : *order) ordered.push_back(walk[static_cast<std::size_t>(rank)]);
    walk = std::move(ordered);
  }
  return walk;
}

void annotate_link_efficiency(CaseResult& r, const topo::Links& links, const std::vector<std::string>& bus_ids) {
  if (!r.ok || r.c.world < 2 || r.c.world > int(bus_ids.size())) return;
  const auto slowest =
      topo::slowest_link_for_bus_ids(links, rank_walk(r, bus_ids), topo::link_pattern_for_variant(r.c.variant));
  const auto eff = topo::link_efficiency(r.busbw_gbps, slowest);
  if (!slowest || !eff) return;
  r.extra["slowest_link_GBps"] = *slowest;
  r.extra["link_efficiency"] = *eff;
}

}  // namespace arbench
