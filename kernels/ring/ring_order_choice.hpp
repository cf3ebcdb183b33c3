// The ring order a case runs in, for every variant that follows the ring order (ring, ce-ring):
// --ring-order when given (a permutation, else a CaseError naming the variant), else the PCIe
// topology's order for the world size when it is a valid one, else the variant's own default
// (rank order on the host, PCI bus order on GPUs). Also says where it came from (the setting
// `ring_order_source`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/ring/ring_order.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"

namespace arbench {

struct RingOrderChoice {
  std::vector<int> order;
  std::string source;
};

// `fallback()`: the variant's default order, `fallback_source` what it is.
template <class Fallback>
RingOrderChoice choose_ring_order(const Tuning& t, int world, const std::string& who, Fallback fallback,
                                  std::string fallback_source) {
  if (!t.ring_order.empty()) {
    if (std::string why = algo::ring_order_problem(t.ring_order, world); !why.empty()) throw CaseError(who + ": " + why);
    return {t.ring_order, "--ring-order"};
  }
  const auto topo = t.topology_ring_orders.find(world);
  if (topo != t.topology_ring_orders.end() && algo::ring_order_problem(topo->second, world).empty())
    return {topo->second, "PCIe topology (fewest switch and socket crossings)"};
  return {fallback(), std::move(fallback_source)};
}

}  // namespace arbench
