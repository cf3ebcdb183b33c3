// What the island variants move between ranks (arbench/traffic.hpp; protocols:
// include/arbench/algo/island/), M bytes of message, islands of k_g ranks:
//   island-oneshot  every rank stores M as LL lines (2M) into every island peer;     waits: poll wave,
//                   then its island's partial (LL, 2M) into each cross partner            poll wave
//   island-twoshot  island barrier; every rank loads its shard (M/k) from every island peer;
//                   its shard's partial stored into every rank of another island whose shard meets
//                   it (the overlap); island barrier; every rank loads every island peer's shard
//                   waits: barrier, wave, cross flags, barrier, wave
// Over P2P: a case whose cross path is host memory (its `cross_path` setting) moves the crossing
// through pinned host memory, which the pattern probe does not measure; its floor says so.
#include <algorithm>

#include "arbench/algo/island/island_map.hpp"
#include "arbench/traffic_schedules.hpp"
#include "kernels/island/island_variant.hpp"

namespace arbench {
namespace {

struct NoFault {};  // cross_destinations' policy: the production mapping

// The case's islands, or why there are none to follow.
bool islands_of(const TrafficQuery& q, algo::IslandMap* m, Traffic* none) {
  if (one_rank(q, none)) return false;
  if (const std::string why = algo::island_map_problem(q.island_of, q.c.world); !why.empty()) {
    *none = Traffic{{}, "the case's islands are not known (" + why + ")"};
    return false;
  }
  *m = algo::make_island_map(q.island_of, q.c.world);
  if (m->islands < 2) {
    *none = Traffic{{}, "one island: nothing crosses"};
    return false;
  }
  return true;
}

// Islands of one rank have nothing inside: their inside phases are dropped, and their waits
// with them (nothing inside an island of one is waited for).
Traffic without_empty_phases(Traffic t) {
  for (auto& s : t.schedules)
    std::erase_if(s.phases, [&](const TrafficPhase& p) {
      if (!p.flows.empty()) return false;
      s.round_trips -= p.waits;
      return true;
    });
  return t;
}

// [begin, end) of the shard at `position` of an island of k ranks, in bytes of a message of m.
std::pair<double, double> shard(double m, int k, int position) { return {m * position / k, m * (position + 1) / k}; }

}  // namespace

Traffic island_oneshot_traffic(const TrafficQuery& q) {
  Traffic t;
  algo::IslandMap m;
  if (!islands_of(q, &m, &t)) return t;
  const double ll = 2.0 * double(q.c.bytes);
  std::vector<TrafficFlow> across;
  for (int r = 0; r < q.c.world; ++r)
    for (int d = 0; d < q.c.world; ++d)
      if ((algo::cross_destinations<NoFault>(m, r) >> d) & 1u) across.push_back({r, d, ll});
  TrafficPhase inside = island_inside_phase("every rank stores its message (LL) into every island peer",
                                            TrafficDirection::push, algo::island_labels(m, q.c.world), ll);
  inside.waits = 1;  // a poll wave
  TrafficPhase crossing = island_across_phase("every rank stores its island's partial (LL) into its partners",
                                              TrafficDirection::push, std::move(across));
  crossing.waits = 1;  // a poll wave
  t.schedules.push_back({"island one-shot (LL inside, the island's partial across)", {inside, crossing}, 2, 2});
  return without_empty_phases(std::move(t));
}

Traffic island_twoshot_traffic(const TrafficQuery& q) {
  Traffic t;
  algo::IslandMap m;
  if (!islands_of(q, &m, &t)) return t;
  const int n = q.c.world;
  const double bytes = double(q.c.bytes);
  auto k_of = [&](int r) { return algo::island_size(m, algo::island_of(m, r)); };
  const std::vector<int> labels = algo::island_labels(m, n);
  TrafficPhase scatter = island_inside_phase("island reduce-scatter: every rank loads its shard from every island peer",
                                             TrafficDirection::pull, labels, 1);
  for (auto& f : scatter.flows) f.bytes = bytes / k_of(f.to);
  scatter.waits = 2;  // barrier, wave
  TrafficPhase gather = island_inside_phase("island all-gather: every rank loads every island peer's shard",
                                            TrafficDirection::pull, labels, 1);
  for (auto& f : gather.flows) f.bytes = bytes / k_of(f.from);
  gather.waits = 2;  // barrier, wave
  std::vector<TrafficFlow> across;
  for (int r = 0; r < n; ++r)
    for (int d = 0; d < n; ++d) {
      if (algo::island_of(m, r) == algo::island_of(m, d)) continue;
      const auto a = shard(bytes, k_of(r), algo::island_index(m, r)), b = shard(bytes, k_of(d), algo::island_index(m, d));
      const double overlap = std::min(a.second, b.second) - std::max(a.first, b.first);
      if (overlap > bytes * 1e-12) across.push_back({r, d, overlap});
    }
  TrafficPhase crossing = island_across_phase(
      "every rank stores its shard's partial into the ranks of other islands whose shard meets it",
      TrafficDirection::push, std::move(across));
  crossing.waits = 1;  // the cross flags
  t.schedules.push_back({"island two-shot (reduce-scatter inside, shards across, all-gather inside)",
                         {std::move(scatter), std::move(crossing), std::move(gather)},
                         5,
                         1});
  return without_empty_phases(std::move(t));
}

}  // namespace arbench
