// The pattern probe on CPU threads, for the host backend's floors: the same patterns as on GPUs
// (probe_plan.hpp), each rank a thread that copies its flows' bytes (push: from its buffer into the
// peer's; pull: from the peer's into its own), every flow of a pattern at once behind one start,
// and the idle hop (idle_latency_us) of a flag handed between two busy-spinning threads (release
// store, acquire load): the fastest one-way crossing of up to `latency_rounds` (fewer once
// latency_budget_s is spent), timed on one steady clock, with no copies running, measured once
// and given to every pattern (the crossing depends on neither the pattern nor the pair then). The
// hop under the pattern's load (latency_us) stays null here, unlike on GPUs: the copy threads
// would share the cores with the two flag threads, and a hop under load prices the scheduler's
// time slices (a few us), more than a whole 2-rank twin op (host_probe.cpp, idle_hop_us, says why
// one-way, and why busy-spinning). Every figure is CPU timing (PatternRates::timing "cpu"): what
// CPU threads sharing this machine's cores and memory do, nothing about GPUs.
//
// Method: per pattern and size, one untimed episode of one repetition, then one of `repetitions`;
// a thread interleaves its flows in 16 KiB chunks so they progress together, and a flow's rate is
// its thread's fastest repetition (every thread copies at once; a repetition the scheduler delayed
// is not the copy's rate). Bounded: every wait gives up after wait_timeout_s (the pattern is then
// skipped, or its hop left null, saying so), and the patterns left once budget_s is spent are
// skipped.
#pragma once

#include <cstddef>
#include <vector>

#include "sol/pattern_rates.hpp"
#include "sol/probe_plan.hpp"

namespace arbench::sol {

struct HostProbeOptions {
  std::vector<std::size_t> sizes = {std::size_t{64} << 10};  // per flow and repetition
  int repetitions = 2;
  int latency_rounds = 10000;     // the fastest of many: a round the scheduler delayed is not the hop
  double latency_budget_s = 0.2;  // fewer rounds when they are slow (a loaded machine)
  double wait_timeout_s = 2.0;
  double budget_s = 2.0;
};

// The rates of `plan` (patterns over CPU ranks 0..ranks-1).
PatternRates run_host_pattern_probe(const std::vector<PlannedPattern>& plan, int ranks, const HostProbeOptions& opt);

}  // namespace arbench::sol
