// Topology-aware ring order (see ring_order.hpp for why depth-first order is optimal).
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "topo/ring_order.hpp"

namespace arbench::topo {

std::vector<int> ring_order(const std::vector<GpuPath>& paths) {
  std::vector<int> order(paths.size());
  std::iota(order.begin(), order.end(), 0);
  // Unknown NUMA nodes sort after the known ones; the bridge lists compare element-wise,
  // which is exactly depth-first order of the tree.
  auto key = [&](int i) {
    const GpuPath& p = paths[i];
    return std::make_tuple(!p.numa_node.has_value(), p.numa_node.value_or(0), std::cref(p.host_bridge),
                           std::cref(p.bridges));
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  return order;
}

std::vector<int> ring_order(const Topology& topo) {
  std::vector<GpuPath> paths;
  for (const auto& g : topo.gpus) paths.push_back(g.path);
  return ring_order(paths);
}

std::vector<int> ring_order_for_bus_ids(const Topology& topo, const std::vector<std::string>& bus_ids) {
  std::vector<GpuPath> paths;
  std::vector<int> placed, unplaced;
  for (std::size_t i = 0; i < bus_ids.size(); ++i) {
    int g = topo.find_gpu(bus_ids[i]);
    if (g < 0) {
      unplaced.push_back(static_cast<int>(i));
    } else {
      paths.push_back(topo.gpus[g].path);
      placed.push_back(static_cast<int>(i));
    }
  }
  std::vector<int> order;
  for (int k : ring_order(paths)) order.push_back(placed[k]);
  order.insert(order.end(), unplaced.begin(), unplaced.end());
  return order;
}

std::vector<int> ring_order_across_nodes(const std::vector<int>& node_of,
                                         const std::vector<std::vector<int>>& node_orders) {
  std::vector<int> order, seen(node_of.size(), 0);
  for (std::size_t n = 0; n < node_orders.size(); ++n)
    for (int r : node_orders[n]) {
      if (r < 0 || std::size_t(r) >= node_of.size() || node_of[std::size_t(r)] != int(n) || seen[std::size_t(r)]++)
        throw std::invalid_argument("ring across nodes: rank " + std::to_string(r) + " listed by node " +
                                    std::to_string(n) + " is not one of its ranks, or listed twice");
      order.push_back(r);
    }
  if (order.size() != node_of.size())
    throw std::invalid_argument("ring across nodes: " + std::to_string(node_of.size() - order.size()) +
                                " ranks are in no node's order");
  return order;
}

RingCost ring_cost(const std::vector<GpuPath>& paths, std::span<const int> order) {
  RingCost cost{};
  if (order.size() < 2) return cost;
  for (std::size_t k = 0; k < order.size(); ++k) {
    int a = order[k], b = order[(k + 1) % order.size()];
    cost[static_cast<int>(relation_between(paths[a], paths[b]))]++;
  }
  return cost;
}

int ring_crossings(const RingCost& cost, Relation level) {
  int n = 0;
  for (int r = static_cast<int>(level); r < static_cast<int>(cost.size()); ++r) n += cost[r];
  return n;
}

bool ring_cost_less(const RingCost& a, const RingCost& b) {
  for (int r = static_cast<int>(Relation::kSys); r >= static_cast<int>(Relation::kPix); --r) {
    auto level = static_cast<Relation>(r);
    int ca = ring_crossings(a, level), cb = ring_crossings(b, level);
    if (ca != cb) return ca < cb;
  }
  return false;
}

}  // namespace arbench::topo
