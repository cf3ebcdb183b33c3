// What ce-twoshot, ce-ring and ce-island move between ranks (arbench/traffic.hpp; programs:
// include/arbench/algo/ce/). Every inter-GPU byte is a copy-engine write into the receiver's
// memory (a push), so the floor prices them with the pattern probe's rates, copy engines
// included (bench/sol/floor.hpp takes the faster mover per flow).
//   ce-twoshot  every rank copies its shard M/N of every peer's segment into that peer's staging;
//               each owner copies its reduced shard into every peer's output.
//               waits: the gather's data flags, then the scatter's: 2 stream waits per op
//   ce-ring     2(N-1) steps, a 1/N segment into the next rank's staging (reduce-scatter) or
//               output (all-gather), in the case's ring order. waits: one stream wait per step
//   ce-island   islands of k ranks: every rank copies its part (M/k) of each island peer's segment
//               into that peer's staging; each owner copies its island's partial (M/k) into its
//               partner in every other island; each owner copies its final segment into every
//               island peer's output. waits: one per phase, 3
#include "arbench/algo/ce/ce_island.hpp"
#include "arbench/traffic_schedules.hpp"
#include "kernels/ce/ce_entry.hpp"

namespace arbench {

Traffic ce_twoshot_traffic(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  const double shard = double(q.c.bytes) / q.c.world;
  // One stream wait per half: the gather's data flags, then the scatter's.
  const TwoShotHalves halves{TrafficDirection::push, TrafficDirection::push, 1, 1};
  t.schedules.push_back(twoshot_schedule("copy-engine two-shot (copies into staging, then into every output)", halves,
                                         q.c.world, shard, shard, 1));
  return t;
}

Traffic ce_ring_traffic(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  const int n = q.c.world;
  t.schedules.push_back(ring_schedule("copy-engine ring (copies into the next rank)", ring_or_identity(q.ring_order, n),
                                      double(q.c.bytes) / n, 2 * (n - 1), 1));
  return t;
}

Traffic ce_island_traffic(const TrafficQuery& q) {
  Traffic t;
  if (one_rank(q, &t)) return t;
  const int n = q.c.world;
  if (std::string why = algo::ce_island_problem(q.island_of, n); !why.empty()) {
    t.why_none = "the case's islands do not fit ce-island (" + why + ")";
    t.declined = true;  // CeVariant::supports_with refuses the case for the same reason
    return t;
  }
  const algo::IslandMap m = algo::make_island_map(q.island_of, n);
  const int k = algo::island_size(m, 0);
  const double shard = double(q.c.bytes) / k;
  const std::vector<int> labels = algo::island_labels(m, n);
  std::vector<TrafficFlow> across;
  for (int r = 0; r < n; ++r)
    for (int h = 0; h < m.islands; ++h)
      if (h != algo::island_of(m, r)) across.push_back({r, algo::island_rank(m, h, algo::island_index(m, r)), shard});
  TrafficSchedule s{"copy-engine island (inside, across, inside)",
                    {island_inside_phase("every rank copies its part of each island peer's segment into its staging",
                                         TrafficDirection::push, labels, shard),
                     island_across_phase("every rank copies its island's partial into its partner in every other island",
                                         TrafficDirection::push, std::move(across)),
                     island_inside_phase("every rank copies its final segment into every island peer's output",
                                         TrafficDirection::push, labels, shard)},
                    3,
                    1};
  for (TrafficPhase& p : s.phases) p.waits = 1;  // one stream wait per phase, at that phase's links
  std::erase_if(s.phases, [](const TrafficPhase& p) { return p.flows.empty(); });  // islands of one rank
  s.round_trips = int(s.phases.size());
  t.schedules.push_back(std::move(s));
  return t;
}

}  // namespace arbench
