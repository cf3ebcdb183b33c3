#include "core/link_efficiency.hpp"

#include <charconv>

namespace arbench {

namespace {

// "0,2,3,1" → {0, 2, 3, 1} when it is a permutation of 0..world-1; empty otherwise.
std::vector<int> parse_order(const std::string& text, int world) {
  std::vector<int> order;
  std::vector<bool> seen(static_cast<std::size_t>(world), false);
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    int rank = -1;
    auto [next, ec] = std::from_chars(p, end, rank);
    if (ec != std::errc() || rank < 0 || rank >= world || seen[static_cast<std::size_t>(rank)]) return {};
    seen[static_cast<std::size_t>(rank)] = true;
    order.push_back(rank);
    if (next == end) break;
    if (*next != ',' || next + 1 == end) return {};  // a separator, and a rank after it
    p = next + 1;
  }
  return int(order.size()) == world ? order : std::vector<int>{};
}

}  // namespace

std::vector<std::string> rank_walk(const CaseResult& r, const std::vector<std::string>& bus_ids) {
  const int world = r.c.world;
  if (world > int(bus_ids.size())) return {};
  std::vector<std::string> walk(bus_ids.begin(), bus_ids.begin() + world);
  for (const auto& [key, value] : r.settings) {
    if (key != "ring_order") continue;
    const std::vector<int> order = parse_order(value, world);
    if (order.empty()) continue;
    std::vector<std::string> ordered;
    for (int rank : order) ordered.push_back(walk[static_cast<std::size_t>(rank)]);
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
