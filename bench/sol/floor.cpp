// The floor of a case; see floor.hpp.
#include "sol/floor.hpp"

#include <algorithm>
#include <cstdio>

#include "arbench/algo/ring/ring_order.hpp"
#include "arbench/core/errors.hpp"
#include "islands/island_spec.hpp"
#include "sol/probe_plan.hpp"

namespace arbench::sol {
namespace {

std::string number(double v, const char* format = "%.3g") {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

int position(const FloorInputs& in, int rank) {
  if (in.position_of_rank.empty()) return rank;
  return rank >= 0 && std::size_t(rank) < in.position_of_rank.size() ? in.position_of_rank[std::size_t(rank)] : -1;
}

}  // namespace

std::string variant_config(const std::string& variant) {
  const auto open = variant.find('[');
  if (open == std::string::npos || variant.back() != ']') return {};
  return variant.substr(open + 1, variant.size() - open - 2);
}

std::optional<double> priced_flow_gbps(const MeasuredPattern& p, const FloorInputs& in, const TrafficFlow& flow,
                                       std::string* mover, bool* fell_back, std::string* why) {
  const int a = position(in, flow.from), b = position(in, flow.to);
  if (a < 0 || b < 0) {
    *why = "rank " + std::to_string(a < 0 ? flow.from : flow.to) + "'s GPU is not among the probed ones";
    return std::nullopt;
  }
  std::optional<double> gbps = p.flow_gbps(a, b, mover);
  if (!gbps) {
    gbps = p.fastest_gbps(mover);
    *fell_back = true;
  }
  if (!gbps) *why = "no flow of " + p.key + " was measured";
  return gbps;
}

namespace {

// A phase's time by its busiest link alone: every step of its busiest flow back to back (a link
// carries one step after another), the last one still to arrive (one hop, where the phase waits),
// and the waits beyond one per step (barriers) before it.
double busiest_link_bound(const SolPhase& p, int steps) {
  const double beyond_steps = std::max(0.0, p.waits - steps);
  return p.transfer_us + (p.waits > 0 ? p.hop_us : 0) + beyond_steps * p.hop_us;
}

}  // namespace

PhaseHop phase_hop(const MeasuredPattern& p) {
  if (const auto idle = p.slowest_idle_hop_us()) return {*idle, false};
  if (const auto loaded = p.slowest_hop_us()) return {*loaded, true};
  return {};
}

std::optional<SolFloor> schedule_floor(const TrafficSchedule& s, int world, const FloorInputs& in,
                                       const std::optional<RoundTrips>& kernel, std::string* why) {
  if (in.rates == nullptr) {
    *why = "no pattern rates";
    return std::nullopt;
  }
  SolFloor f;
  f.schedule = s.name;
  f.rates = in.rates_source;
  f.timing = in.rates->timing;
  f.pipelined = s.pipelined;
  f.round_trips = kernel ? kernel->per_op : s.round_trips;
  f.round_trips_source = kernel                     ? kernel->source
                         : !s.waits_source.empty() ? s.waits_source
                                                   : "the schedule's own count (no count of the kernel's code)";
  // The kernel's count replaces the schedule's; the phases keep their shares of it.
  const std::vector<int> waits = phase_waits(s);
  const double scale = s.round_trips > 0 ? f.round_trips / s.round_trips : 0;
  double phases_us = 0;      // not pipelined: the phases one after another, each its larger bound
  bool busiest_won = false;  // some phase priced below its waits plus its busiest transfer
  bool loaded_hop = false;   // a pattern without an idle hop (an older topo file) priced its loaded one
  std::string no_hop;       // patterns whose waits had no hop to price them
  std::optional<double> cheapest_hop;
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const TrafficPhase& phase = s.phases[k];
    const MeasuredPattern* p = in.rates->find(phase.shape, phase.direction, world);
    const std::string key = pattern_key(phase.shape, phase.direction, world);
    if (p == nullptr) {
      *why = "the pattern " + key + " was not measured";
      return std::nullopt;
    }
    SolPhase sp{phase.what, key, 0, 0, "", 0, waits[k] * scale, 0};
    bool fell_back = false;
    std::optional<double> quickest_us;  // the phase's fastest flow, all its steps
    for (const TrafficFlow& flow : phase.flows) {
      std::string mover;
      const auto gbps = priced_flow_gbps(*p, in, flow, &mover, &fell_back, why);
      if (!gbps) return std::nullopt;
      const double bytes = flow.bytes * phase.steps;
      const double us = bytes / *gbps / 1e3;  // GB/s = bytes per ns
      if (!quickest_us || us < *quickest_us) quickest_us = us;
      if (us > sp.transfer_us) {
        sp.busiest_bytes = bytes;
        sp.gbps = *gbps;
        sp.mover = mover;
        sp.transfer_us = us;
      }
    }
    if (fell_back)
      f.notes.push_back(key + ": a flow the probe did not measure (other GPUs than 0..N-1) takes the pattern's fastest rate");
    const PhaseHop h = phase_hop(*p);
    if (h.us) {
      sp.hop_us = *h.us;
      loaded_hop = loaded_hop || (h.loaded && sp.waits > 0);
      if (!cheapest_hop || *h.us < *cheapest_hop) cheapest_hop = h.us;
    } else if (sp.waits > 0) {
      no_hop += (no_hop.empty() ? "" : ", ") + key;
    }
    f.latency_us += sp.waits * sp.hop_us;
    f.transfer_us = s.pipelined ? std::max(f.transfer_us, sp.transfer_us) : f.transfer_us + sp.transfer_us;
    if (!s.pipelined) {
      const double by_waits = sp.waits * sp.hop_us + quickest_us.value_or(0);
      const double by_busiest = busiest_link_bound(sp, phase.steps);
      phases_us += std::max(by_waits, by_busiest);
      // Below waits x hop + the busiest transfer only where the phase's links differ over its steps.
      busiest_won = busiest_won || std::max(by_waits, by_busiest) < sp.waits * sp.hop_us + sp.transfer_us - 1e-9;
    }
    f.phases.push_back(std::move(sp));
  }
  if (s.round_trips == 0 && f.round_trips > 0) {
    // The schedule splits no waits over its phases: the kernel's, each at the cheapest phase's hop.
    f.latency_us = f.round_trips * cheapest_hop.value_or(0);
    if (!cheapest_hop) no_hop = "any of its patterns";
  }
  if (!no_hop.empty())
    f.notes.push_back("no hop latency under " + no_hop + ": those waits are priced at 0 us (the rates have no hop "
                      "there), so the floor is the transfer alone, lower than it could be");
  if (loaded_hop)
    f.notes.push_back("hop: the one measured under the pattern's load (the rates have no idle hop: a topo file "
                      "from before arbench measured one); a small message's flags cross idle links, so this "
                      "floor may sit above what it can reach (`arbench topo --out FILE` again)");
  if (s.pipelined)
    f.notes.push_back("pipelined: the phases overlap pack by pack, so the transfer is the slowest phase's alone "
                      "and every phase's waits are the pipeline's fill");
  if (busiest_won)
    f.notes.push_back("a phase's busiest link outlasts its chain of waits (its links differ): that phase is priced at "
                      "its busiest link's steps back to back plus one hop, not at its waits plus its busiest transfer");
  f.hop_us = f.round_trips > 0 ? f.latency_us / f.round_trips : 0;
  f.sol_us = s.pipelined || s.round_trips == 0 ? f.latency_us + f.transfer_us : phases_us;
  return f;
}

std::optional<SolFloor> traffic_floor(const Traffic& t, const TrafficQuery& q, const FloorInputs& in,
                                      const std::optional<RoundTrips>& kernel, std::string* why) {
  if (t.schedules.empty()) {
    *why = t.why_none.empty() ? "the variant's traffic has no schedule" : t.why_none;
    return std::nullopt;
  }
  std::optional<SolFloor> best;
  std::string reasons;
  for (const TrafficSchedule& s : t.schedules) {
    std::string w;
    if (const std::string problem = traffic_problem(s, query_of(t, q)); !problem.empty()) {
      reasons += (reasons.empty() ? "" : "; ") + std::string("a pattern error: ") + problem;
      continue;
    }
    auto f = schedule_floor(s, q.c.world, in, kernel, &w);
    if (!f) {
      reasons += (reasons.empty() ? "" : "; ") + s.name + ": " + w;
      continue;
    }
    if (!best || f->sol_us < best->sol_us) best = std::move(f);
  }
  if (!best) *why = reasons;
  else if (t.schedules.size() > 1)
    best->notes.push_back("the lowest of " + std::to_string(t.schedules.size()) +
                          " schedules the variant may run (it picks at run time)");
  return best;
}

void annotate_floor(CaseResult& r, const Registry& reg, const CaseContext& ctx, const FloorInputs& in,
                    const RoundTripLookup& round_trips) {
  r.sol.reset();
  r.sol_none.clear();
  const VariantEntry* e = reg.find(r.c.variant);
  if (e == nullptr || e->traffic == nullptr) {
    r.sol_none = "the variant has no traffic pattern";
    return;
  }
  TrafficQuery q{r.c, variant_config(r.c.variant), ctx.island_of, ctx.ring_order, r.settings};
  std::string bad_islands;
  // What the case recorded it ran on wins over the run's defaults (--ring-order, the host
  // backend's two halves).
  for (const auto& [k, v] : r.settings) {
    if (k == "cross_path" && v.find("host") != std::string::npos) {
      r.sol_none = "its islands cross through host memory, which the pattern probe does not measure";
      return;
    }
    if (k == "ring_order")
      if (const auto order = algo::parse_ring_order_text(v); order && algo::ring_order_problem(*order, r.c.world).empty())
        q.ring_order = *order;
    if (k == "islands") try {
        q.island_of = islands::parse_islands(v);
      } catch (const Error& bad) {  // priced on the run's islands instead, saying so below
        bad_islands = "the case's recorded islands '" + v + "' do not parse (" + bad.what() + "); the run's were used";
      }
  }
  const auto kernel = round_trips ? round_trips(r.c.variant, r.c.world, r.c.dtype, ctx.arch) : std::nullopt;
  std::string why;
  r.sol = traffic_floor(e->traffic(q), q, in, kernel, &why);
  if (!r.sol) {
    r.sol_none = why;
    return;
  }
  if (!bad_islands.empty()) r.sol->notes.push_back(bad_islands);
  if (r.data_path.find("SHM") != std::string::npos)
    r.sol->notes.push_back("NCCL moved data through host memory (" + r.data_path +
                           "); the floor prices the P2P patterns, which it did not use");
  if (below_floor(r))
    r.sol->notes.push_back("faster than its floor (" + number(r.latency_us.median) + " us < " +
                           number(r.sol->sol_us) + " us): a timing error or a wrong traffic pattern, not a success");
}

}  // namespace arbench::sol
