#include "islands/derive.hpp"

#include <map>
#include <sstream>
#include <tuple>

#include "arbench/algo/symm_layout.hpp"
#include "islands/p2p_split.hpp"

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

std::string list(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ",") + std::to_string(r);
  return s;
}

bool numa_known(const topo::GpuPath& p) { return p.numa_node && *p.numa_node >= 0; }

}  // namespace

std::string islands_text_of(const std::vector<int>& island_of) {
  std::string out;
  for (int g = 0;; ++g) {
    std::vector<int> ranks;
    for (std::size_t r = 0; r < island_of.size(); ++r)
      if (island_of[r] == g) ranks.push_back(static_cast<int>(r));
    if (ranks.empty()) return out;
    out += g > 0 ? "," : "";
    for (std::size_t i = 0; i < ranks.size();) {
      std::size_t end = i;
      while (end + 1 < ranks.size() && ranks[end + 1] == ranks[end] + 1) ++end;
      out += (i > 0 ? "+" : "") + std::to_string(ranks[i]) + (end > i ? "-" + std::to_string(ranks[end]) : std::string());
      i = end + 1;
    }
  }
}

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
  std::vector<int> left = alone, unknown_numa;
  // An unknown NUMA node (sysfs numa_node -1 or missing) shares nothing: a key of its own, so two
  // such GPUs never meet as "one socket" (-1 is no evidence that they share one).
  for (int r : left)
    if (!numa_known(path(r))) unknown_numa.push_back(r);
  if (left.size() >= 2 && !unknown_numa.empty())
    d.notes.push_back("GPUs " + list(unknown_numa) + ": NUMA node unknown (sysfs numa_node -1 or missing), so not " +
                      "grouped by socket: each is an island of its own unless a switch or root complex joins it");
  for (auto& g : groups_by(left, [&](int r) { return numa_known(path(r)) ? *path(r).numa_node : -1000 - r; }, alone))
    found.push_back({g, "NUMA node " + std::to_string(*path(g.front()).numa_node) + " (one GPU per root complex)"});
  for (int r : alone) found.push_back({{r}, "alone"});
  // 4. an island needs P2P both ways between every pair inside (p2p_split.hpp: greedy in rank order).
  std::vector<Group> islands;
  for (const Group& g : found) {
    if (p2p.empty() || g.ranks.size() < 2) {
      islands.push_back(g);
      continue;
    }
    const P2pSplit split = split_by_p2p(g.ranks, p2p);
    if (split.islands.size() > 1) {
      std::string parts;
      for (const auto& c : split.islands) parts += (parts.empty() ? "" : " | ") + list(c);
      std::string pairs;
      for (std::size_t i = 0; i < split.missing.size() && i < 6; ++i) pairs += (i ? "; " : "") + split.missing[i];
      if (split.missing.size() > 6) pairs += "; and " + std::to_string(split.missing.size() - 6) + " more";
      d.notes.push_back("GPUs " + list(g.ranks) + " (" + g.basis + ") split into " + std::to_string(split.islands.size()) +
                        " islands (" + parts + "): an island needs P2P both ways between every pair, and " + pairs +
                        " (split greedily in GPU order)");
    }
    for (const auto& c : split.islands) islands.push_back({c, g.basis + (split.islands.size() > 1 ? ", P2P group" : "")});
  }
  // Number the islands in the order of their lowest rank (island_map.hpp's order) for any
  // number of GPUs: the island kernels run on at most algo::kLayoutMaxRanks ranks, a box may have more.
  std::vector<int> label(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < islands.size(); ++i)
    for (int r : islands[i].ranks) label[static_cast<std::size_t>(r)] = static_cast<int>(i);
  std::vector<int> number_of(islands.size(), -1);
  for (int r = 0; r < n; ++r) {
    int& num = number_of[static_cast<std::size_t>(label[static_cast<std::size_t>(r)])];
    if (num < 0) {
      num = static_cast<int>(d.basis.size());
      d.basis.push_back(islands[static_cast<std::size_t>(label[static_cast<std::size_t>(r)])].basis);
    }
    d.island_of.push_back(num);
  }
  if (n > algo::kLayoutMaxRanks)
    d.notes.push_back(std::to_string(n) + " GPUs: the island variants run on at most " +
                      std::to_string(algo::kLayoutMaxRanks) + " ranks, so a run uses the islands of its GPUs 0..w-1 " +
                      "(w <= " + std::to_string(algo::kLayoutMaxRanks) + ") and skips them above that");
  return d;
}

std::vector<std::vector<int>> working_p2p(std::vector<std::vector<int>> reported, const PeerAccess& checked) {
  for (const auto& [a, b] : checked.broken())
    if (std::size_t(a) < reported.size() && std::size_t(b) < reported[std::size_t(a)].size())
      reported[std::size_t(a)][std::size_t(b)] = 0;
  return reported;
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
  os << " " << islands_text_of(d.island_of) << "\n";
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
  return {{"islands", islands_text_of(d.island_of)}, {"island_of", d.island_of}, {"basis", d.basis},
          {"notes", d.notes}};
}

}  // namespace arbench::islands
