// The speed-of-light floor of a case (docs/method.md, "The floor of a case"): what its schedule's
// traffic (arbench/traffic.hpp) costs at the rates this box reached under that traffic's own
// pattern and concurrency (pattern_rates.hpp):
//
//   floor = sum over phases of (the phase's waits x the hop of the phase's own pattern)
//         + sum over phases of max over the phase's flows of
//           (the flow's bytes x steps / the flow's rate measured with every flow of the pattern at once)
//
// and for a pipelined schedule (phases overlapping pack by pack) the slowest phase's transfer alone
// in place of the sum: the pipeline's fill is its waits, one per phase.
// The flow that takes longest is the busiest path; its rate is the fastest the pattern probe saw
// for that flow (over the sizes measured, SM copies or copy engines): a floor, not a prediction.
// A phase's hop is the slowest of its pattern's hops measured with nothing running (a wait on
// every peer ends with the slowest; a small message's own flags cross idle links, and a hop
// measured under bulk copies would put the floor above what it can reach); the loaded hop only
// where the rates have no idle one (older topo files), saying so; none (published rates without a
// latency): 0, saying so. Each phase pays its waits at its own hop, never at another phase's:
// waits inside a switch are not priced at the hop across the host. The waits are the kernel's
// (round_trips.hpp), shared over the phases as the schedule shares its own; else the schedule's.
// A variant with several schedules (NCCL choosing its algorithm) gets the lowest of their floors.
// Host-only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arbench/traffic.hpp"
#include "arbench/variant.hpp"
#include "results/results.hpp"
#include "sol/pattern_rates.hpp"
#include "sol/round_trips.hpp"

namespace arbench::sol {

struct FloorInputs {
  const PatternRates* rates = nullptr;
  std::vector<int> position_of_rank;  // rank r's position in rates->positions; empty: r itself
  std::string rates_source;           // where the rates came from, for SolFloor::rates
};

// The rate the floor gives `flow` of a phase priced under pattern `p` (the flow's fastest, or the
// pattern's fastest where the probe did not measure that flow: *fell_back); nullopt with *why when
// a rank's GPU was not probed or nothing was measured. The ideal execution (ideal_execution.hpp)
// runs every flow at this same rate.
std::optional<double> priced_flow_gbps(const MeasuredPattern& p, const FloorInputs& in, const TrafficFlow& flow,
                                       std::string* mover, bool* fell_back, std::string* why);

// A phase's hop: its pattern's slowest idle hop, else its slowest loaded one (`loaded`); none
// where the rates have no hop for it.
struct PhaseHop {
  std::optional<double> us;
  bool loaded = false;
};
PhaseHop phase_hop(const MeasuredPattern& p);

// The floor of one schedule of a world of `world` ranks; nullopt, with the reason in *why, when a
// phase's pattern, a rank's position or the hop latency is not measured. `kernel`: the kernel's
// round trips, which replace the schedule's count.
std::optional<SolFloor> schedule_floor(const TrafficSchedule& s, int world, const FloorInputs& in,
                                       const std::optional<RoundTrips>& kernel, std::string* why);

// The lowest floor of `t`'s schedules, each checked first (traffic_problem: a schedule that is not
// an all-reduce's is a pattern error, reported, never priced); nullopt with *why when none has one.
std::optional<SolFloor> traffic_floor(const Traffic& t, const TrafficQuery& q, const FloorInputs& in,
                                      const std::optional<RoundTrips>& kernel, std::string* why);

// What a run knows of a case beyond its result: its islands and ring order (by rank), the GPUs'
// compute capability (0 on the host backend).
struct CaseContext {
  std::vector<int> island_of, ring_order;
  int arch = 0;
};

// Sets r.sol, or r.sol_none with the reason, for a case of a variant of `reg`.
void annotate_floor(CaseResult& r, const Registry& reg, const CaseContext& ctx, const FloorInputs& in,
                    const RoundTripLookup& round_trips);

// "nccl[ring/ll]" -> "ring/ll"; "" without a configuration.
std::string variant_config(const std::string& variant);

}  // namespace arbench::sol
