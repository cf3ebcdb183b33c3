// The phases schedules are written from, and the check that a schedule is an all-reduce's
// (arbench/traffic.hpp). The check is written apart from the builders, from what every
// all-reduce must do, so a builder that drops a peer fails it.
#include "arbench/traffic.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace arbench {

const char* traffic_shape_name(TrafficShape s) {
  switch (s) {
    case TrafficShape::all_pairs: return "all-pairs";
    case TrafficShape::ring: return "ring";
    case TrafficShape::chain: return "chain";
    case TrafficShape::island_inside: return "island-inside";
    case TrafficShape::island_across: return "island-across";
  }
  return "?";
}

const char* traffic_direction_name(TrafficDirection d) { return d == TrafficDirection::push ? "push" : "pull"; }

const std::string* TrafficQuery::setting(const std::string& key) const {
  for (const auto& [k, v] : settings)
    if (k == key) return &v;
  return nullptr;
}

std::vector<int> phase_waits(const TrafficSchedule& s) {
  if (s.phases.size() == 1) return {s.round_trips};
  std::vector<int> w;
  for (const TrafficPhase& p : s.phases) w.push_back(p.waits);
  return w;
}

TrafficQuery query_of(const Traffic& t, const TrafficQuery& q) {
  TrafficQuery out = q;
  if (!t.island_of.empty()) out.island_of = t.island_of;
  return out;
}

std::vector<int> ring_or_identity(const std::vector<int>& order, int world) {
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool every_rank_once = int(order.size()) == world;
  for (int r = 0; every_rank_once && r < world; ++r) every_rank_once = sorted[std::size_t(r)] == r;
  if (every_rank_once) return order;
  std::vector<int> identity(std::size_t(std::max(world, 0)));
  for (int r = 0; r < world; ++r) identity[std::size_t(r)] = r;
  return identity;
}

TrafficPhase all_pairs_phase(std::string what, TrafficDirection d, int world, double bytes) {
  TrafficPhase p{std::move(what), TrafficShape::all_pairs, d, 1, {}};
  for (int from = 0; from < world; ++from)
    for (int to = 0; to < world; ++to)
      if (from != to) p.flows.push_back({from, to, bytes});
  return p;
}

TrafficPhase ring_phase(std::string what, TrafficDirection d, const std::vector<int>& order, int steps, double bytes) {
  TrafficPhase p{std::move(what), TrafficShape::ring, d, steps, {}};
  for (std::size_t k = 0; k < order.size(); ++k) p.flows.push_back({order[k], order[(k + 1) % order.size()], bytes});
  return p;
}

TrafficPhase chain_phase(std::string what, TrafficDirection d, const std::vector<int>& order, int steps, double bytes) {
  TrafficPhase p{std::move(what), TrafficShape::chain, d, steps, {}};
  for (std::size_t k = 0; k + 1 < order.size(); ++k) {
    p.flows.push_back({order[k], order[k + 1], bytes});
    p.flows.push_back({order[k + 1], order[k], bytes});
  }
  return p;
}

TrafficPhase island_inside_phase(std::string what, TrafficDirection d, const std::vector<int>& island_of, double bytes) {
  TrafficPhase p{std::move(what), TrafficShape::island_inside, d, 1, {}};
  const int n = int(island_of.size());
  for (int from = 0; from < n; ++from)
    for (int to = 0; to < n; ++to)
      if (from != to && island_of[std::size_t(from)] == island_of[std::size_t(to)]) p.flows.push_back({from, to, bytes});
  return p;
}

TrafficPhase island_across_phase(std::string what, TrafficDirection d, std::vector<TrafficFlow> flows) {
  return {std::move(what), TrafficShape::island_across, d, 1, std::move(flows)};
}

namespace {

using Pairs = std::set<std::pair<int, int>>;

std::string pair_text(int a, int b) { return std::to_string(a) + "->" + std::to_string(b); }

// The ordered pairs a phase of `shape` must have, when the shape fixes them (all-pairs, island
// inside); nullopt-like empty flag otherwise.
Pairs every_pair(int world, const std::vector<int>* island_of) {
  Pairs want;
  for (int a = 0; a < world; ++a)
    for (int b = 0; b < world; ++b)
      if (a != b && (island_of == nullptr || (*island_of)[std::size_t(a)] == (*island_of)[std::size_t(b)]))
        want.insert({a, b});
  return want;
}

// What `got` lacks of `want`, and has beyond it, as text ("" when equal).
std::string pair_difference(const Pairs& want, const Pairs& got) {
  std::string missing, extra;
  for (const auto& p : want)
    if (!got.count(p)) missing += (missing.empty() ? "" : ", ") + pair_text(p.first, p.second);
  for (const auto& p : got)
    if (!want.count(p)) extra += (extra.empty() ? "" : ", ") + pair_text(p.first, p.second);
  if (missing.empty() && extra.empty()) return {};
  return (missing.empty() ? "" : "missing " + missing) + (missing.empty() || extra.empty() ? "" : "; ") +
         (extra.empty() ? "" : "not of its shape " + extra);
}

// Whether the flows (each rank once as source and once as destination) form one cycle of all ranks.
std::string ring_problem(const TrafficPhase& p, int world) {
  std::map<int, int> next;
  std::set<int> targets;
  for (const auto& f : p.flows) {
    if (!next.emplace(f.from, f.to).second) return "rank " + std::to_string(f.from) + " sends to two ranks";
    if (!targets.insert(f.to).second) return "rank " + std::to_string(f.to) + " receives from two ranks";
  }
  if (int(next.size()) != world) return std::to_string(next.size()) + " ranks send, of " + std::to_string(world);
  int at = 0, hops = 0;
  do {
    at = next.at(at);
    ++hops;
  } while (at != 0 && hops <= world);
  if (hops != world) return "the flows make a cycle of " + std::to_string(hops) + " ranks, not of all " + std::to_string(world);
  return {};
}

// Whether the flows are the edges of one path through all ranks, each both ways.
std::string chain_problem(const TrafficPhase& p, int world) {
  Pairs got;
  std::map<int, std::set<int>> neighbours;
  for (const auto& f : p.flows) {
    got.insert({f.from, f.to});
    neighbours[f.from].insert(f.to);
  }
  for (const auto& [a, b] : got)
    if (!got.count({b, a})) return pair_text(a, b) + " has no flow back";
  if (int(got.size()) != 2 * (world - 1))
    return std::to_string(got.size() / 2) + " links, a path of " + std::to_string(world) + " ranks has " +
           std::to_string(world - 1);
  int ends = 0;
  for (int r = 0; r < world; ++r) {
    const std::size_t k = neighbours[r].size();
    if (k == 0 || k > 2) return "rank " + std::to_string(r) + " has " + std::to_string(k) + " neighbours";
    ends += k == 1;
  }
  if (ends != 2 && world > 1) return "the links do not make one path (" + std::to_string(ends) + " ends)";
  return {};  // world - 1 links, every degree 1 or 2, two ends: a path (a cycle plus a path would need more links)
}

std::string across_problem(const TrafficPhase& p, const std::vector<int>& island_of) {
  const int world = int(island_of.size());
  std::set<std::pair<int, int>> heard;  // (rank, island it heard from)
  for (const auto& f : p.flows) {
    if (island_of[std::size_t(f.from)] == island_of[std::size_t(f.to)])
      return pair_text(f.from, f.to) + " stays inside island " + std::to_string(island_of[std::size_t(f.from)]);
    heard.insert({f.to, island_of[std::size_t(f.from)]});
  }
  const std::set<int> islands(island_of.begin(), island_of.end());
  for (int r = 0; r < world; ++r)
    for (int g : islands)
      if (g != island_of[std::size_t(r)] && !heard.count({r, g}))
        return "rank " + std::to_string(r) + " hears from no rank of island " + std::to_string(g);
  return {};
}

std::string shape_problem(const TrafficPhase& p, const TrafficQuery& q) {
  const int world = q.c.world;
  const bool islands_known = int(q.island_of.size()) == world;
  Pairs got;
  for (const auto& f : p.flows) got.insert({f.from, f.to});
  switch (p.shape) {
    case TrafficShape::all_pairs:
      if (got.size() != p.flows.size()) return "a pair appears twice";
      return pair_difference(every_pair(world, nullptr), got);
    case TrafficShape::ring: return ring_problem(p, world);
    case TrafficShape::chain: return chain_problem(p, world);
    case TrafficShape::island_inside:
      if (!islands_known) return "an island phase without the case's islands";
      if (got.size() != p.flows.size()) return "a pair appears twice";
      return pair_difference(every_pair(world, &q.island_of), got);
    case TrafficShape::island_across:
      if (!islands_known) return "an island phase without the case's islands";
      return across_problem(p, q.island_of);
  }
  return "unknown shape";
}

}  // namespace

std::string traffic_problem(const TrafficSchedule& s, const TrafficQuery& q) {
  const int world = q.c.world;
  const double message = double(q.c.bytes);
  if (s.phases.empty()) return s.name + ": no phase";
  if (!(s.wire_ratio > 0)) return s.name + ": wire ratio " + std::to_string(s.wire_ratio) + " is not positive";
  if (s.phases.size() > 1) {
    int sum = 0;
    for (const TrafficPhase& p : s.phases) {
      if (p.waits < 0) return s.name + ", phase \"" + p.what + "\": " + std::to_string(p.waits) + " waits";
      sum += p.waits;
    }
    if (sum != s.round_trips)
      return s.name + ": its phases' waits add up to " + std::to_string(sum) + ", not the schedule's " +
             std::to_string(s.round_trips) + " round trips";
  }
  std::vector<std::set<int>> knows(std::size_t(std::max(world, 0)));
  for (int r = 0; r < world; ++r) knows[std::size_t(r)].insert(r);
  std::vector<double> received(std::size_t(std::max(world, 0)), 0.0);
  for (const TrafficPhase& p : s.phases) {
    const std::string where = s.name + ", phase \"" + p.what + "\" (" + traffic_shape_name(p.shape) + ")";
    if (p.steps < 1) return where + ": " + std::to_string(p.steps) + " steps";
    if (p.flows.empty()) return where + ": no flow";
    for (const auto& f : p.flows) {
      if (f.from < 0 || f.to < 0 || f.from >= world || f.to >= world)
        return where + ": flow " + pair_text(f.from, f.to) + " outside ranks 0.." + std::to_string(world - 1);
      if (f.from == f.to) return where + ": flow " + pair_text(f.from, f.to) + " to itself";
      if (!(f.bytes > 0)) return where + ": flow " + pair_text(f.from, f.to) + " moves no bytes";
    }
    if (const std::string why = shape_problem(p, q); !why.empty()) return where + ": " + why;
    for (const auto& f : p.flows) received[std::size_t(f.to)] += f.bytes * p.steps / s.wire_ratio;
    for (int step = 0; step < std::min(p.steps, world); ++step) {
      auto next = knows;
      for (const auto& f : p.flows) next[std::size_t(f.to)].insert(knows[std::size_t(f.from)].begin(), knows[std::size_t(f.from)].end());
      knows = std::move(next);
    }
  }
  for (int r = 0; r < world; ++r) {
    if (int(knows[std::size_t(r)].size()) != world) {
      int missing = 0;
      while (knows[std::size_t(r)].count(missing)) ++missing;
      return s.name + ": rank " + std::to_string(r) + "'s sum never hears from rank " + std::to_string(missing);
    }
    if (received[std::size_t(r)] < message * (1 - 1e-9))
      return s.name + ": rank " + std::to_string(r) + " receives " + std::to_string(received[std::size_t(r)]) +
             " bytes of data, less than the message's " + std::to_string(message) +
             " (a sum of every rank's data needs at least the message from the others)";
  }
  return {};
}

}  // namespace arbench
