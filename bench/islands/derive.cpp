#include "islands/derive.hpp"

#include <map>
#include <sstream>
#include <tuple>

#include "arbench/algo/island/island_map.hpp"

namespace arbench::islands {
namespace {

// Groups `members` by `key`; returns the groups of two or more (in order of first member) and
// leaves the lone members in `alone`.
template <class Key>
std::vector<std::vector<int>> groups_by(const std::vector<int>& members, Key&& key, std::vector<int>& alone) {
  std::vector<std::vector<int>> groups;
  std::vector<decltype(key(0))> keys;
  for (int r : members) {
    const auto k = key(r);
    std::size_t i = 0;
    while (i < keys.size() && !(keys[i] == k)) ++i;
    if (i == keys.size()) {
      keys.push_back(k);
      groups.emplace_back();
    }
    groups[i].push_back(r);
  }
  std::vector<std::vector<int>> out;
  alone.clear();
  for (auto& g : groups)
    if (g.size() >= 2)
      out.push_back(g);
    else
      alone.push_back(g.front());
  return out;
}

// Connected components of `group` in the P2P graph (both directions needed).
std::vector<std::vector<int>> p2p_components(const std::vector<int>& group, const std::vector<std::vector<int>>& p2p) {
  std::vector<std::vector<int>> comps;
  std::vector<int> comp_of(group.size(), -1);
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (comp_of[i] >= 0) continue;
    comp_of[i] = static_cast<int>(comps.size());
    comps.push_back({group[i]});
    for (std::size_t at = 0; at < comps.back().size(); ++at)
      for (std::size_t j = 0; j < group.size(); ++j) {
        const int a = comps.back()[at], b = group[j];
        if (comp_of[j] < 0 && p2p[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] != 0 &&
            p2p[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] != 0) {
          comp_of[j] = comp_of[i];
          comps.back().push_back(b);
        }
      }
  }
  return comps;
}

std::string list(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
  return s;
}

}  // namespace

Derived derive_islands(const std::vector<std::optional<topo::GpuPath>>& paths, const std::vector<std::vector<int>>& p2p) {
  Derived d;
  const int n = static_cast<int>(paths.size());
  for (int r = 0; r < n; ++r)
    if (!paths[static_cast<std::size_t>(r)]) {
      d.unknown = "GPU " + std::to_string(r) + " has no PCIe path in sysfs";
      return d;
    }
  auto path = [&](int r) -> const topo::GpuPath& { return *paths[static_cast<std::size_t>(r)]; };
  std::vector<int> all, alone;
  for (int r = 0; r < n; ++r) all.push_back(r);
  struct Group {
    std::vector<int> ranks;
    std::string basis;
  };
  std::vector<Group> found;
  // 1. one switch tree: below the same root port (bridges[0]) of the same host bridge.
  auto with_switch = std::vector<int>{};
  std::vector<int> direct;
  for (int r : all) (path(r).bridges.size() >= 2 ? with_switch : direct).push_back(r);
  for (auto& g : groups_by(with_switch, [&](int r) { return std::make_pair(path(r).host_bridge, path(r).bridges[0]); }, alone))
    found.push_back({g, "one PCIe switch below root port " + path(g.front()).bridges[0]});
  direct.insert(direct.end(), alone.begin(), alone.end());
  // 2. one root complex; 3. one socket.
  for (auto& g : groups_by(direct, [&](int r) { return path(r).host_bridge; }, alone))
    found.push_back({g, "root complex " + path(g.front()).host_bridge});
  std::vector<int> left = alone;
  // An unknown NUMA node shares nothing: a key of its own.
  for (auto& g : groups_by(left, [&](int r) { return path(r).numa_node.value_or(-1000 - r); }, alone))
    found.push_back({g, "NUMA node " + std::to_string(path(g.front()).numa_node.value_or(-1)) + " (one GPU per root complex)"});
  for (int r : alone) found.push_back({{r}, "alone"});
  // 4. an island needs P2P inside.
  std::vector<Group> islands;
  for (const Group& g : found) {
    if (p2p.empty() || g.ranks.size() < 2) {
      islands.push_back(g);
      continue;
    }
    const auto comps = p2p_components(g.ranks, p2p);
    if (comps.size() > 1)
      d.notes.push_back("GPUs " + list(g.ranks) + " (" + g.basis + ") split into " + std::to_string(comps.size()) +
                        " islands: not every pair has P2P");
    for (const auto& c : comps) islands.push_back({c, g.basis + (comps.size() > 1 ? ", P2P group" : "")});
  }
  std::vector<int> label(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < islands.size(); ++i)
    for (int r : islands[i].ranks) label[static_cast<std::size_t>(r)] = static_cast<int>(i);
  // Renumber in the order of the lowest rank (island_map.hpp's order), basis along.
  const algo::IslandMap m = algo::make_island_map(label, n);
  d.island_of = algo::island_labels(m, n);
  d.basis.assign(static_cast<std::size_t>(m.islands), "");
  for (int r = 0; r < n; ++r)
    d.basis[static_cast<std::size_t>(d.island_of[static_cast<std::size_t>(r)])] =
        islands[static_cast<std::size_t>(label[static_cast<std::size_t>(r)])].basis;
  return d;
}

Derived derive_islands(const topo::Topology& topo, const std::vector<std::string>& bus_ids,
                       const std::vector<std::vector<int>>& p2p) {
  std::vector<std::optional<topo::GpuPath>> paths;
  for (const auto& id : bus_ids) {
    const int g = topo.find_gpu(id);
    paths.push_back(g < 0 ? std::nullopt : std::optional<topo::GpuPath>(topo.gpus[static_cast<std::size_t>(g)].path));
  }
  Derived d = derive_islands(paths, p2p);
  if (!d.unknown.empty()) {
    for (std::size_t r = 0; r < bus_ids.size(); ++r)
      if (!paths[r]) d.unknown = "GPU " + std::to_string(r) + " (" + bus_ids[r] + ") has no PCIe path in sysfs";
  }
  return d;
}

std::string render_islands(const Derived& d, const std::vector<std::string>& labels) {
  std::ostringstream os;
  os << "Islands (GPUs under one PCIe switch or root complex, with P2P among them):";
  if (!d.unknown.empty()) {
    os << " unknown: " << d.unknown << "\n";
    return os.str();
  }
  os << " " << algo::islands_text(d.island_of) << "\n";
  for (std::size_t g = 0; g < d.basis.size(); ++g) {
    os << "  island " << g << ":";
    for (std::size_t r = 0; r < d.island_of.size(); ++r)
      if (d.island_of[r] == static_cast<int>(g)) os << " " << (r < labels.size() ? labels[r] : "GPU" + std::to_string(r));
    os << "  (" << d.basis[g] << ")\n";
  }
  for (const auto& n : d.notes) os << "  note: " << n << "\n";
  if (d.basis.size() < 2) os << "  one island: the island variants are skipped on these GPUs\n";
  return os.str();
}

nlohmann::json islands_to_json(const Derived& d) {
  if (!d.unknown.empty()) return {{"unknown", d.unknown}};
  return {{"islands", algo::islands_text(d.island_of)}, {"island_of", d.island_of}, {"basis", d.basis},
          {"notes", d.notes}};
}

}  // namespace arbench::islands
