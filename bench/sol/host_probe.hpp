// The pattern probe on CPU threads, for the host backend's floors: the same patterns as on GPUs
// (probe_plan.hpp), each rank a thread that copies its flows' bytes (push: from its buffer into the
// peer's; pull: from the peer's into its own), every flow of a pattern at once behind one start,
// and the one-way latency of a flag handed between two threads (release store, acquire load)
// while the copies run: half the fastest of its round trips (the threads share the cores with the
// copies; a round the scheduler delayed would price the scheduler, and a floor must stay below
// what the twins can reach). Every figure is CPU timing (PatternRates::timing "cpu"): what CPU threads
// sharing this machine's cores and memory do, nothing about GPUs.
//
// Method: per pattern and size, one untimed episode of one repetition, then one of `repetitions`;
// a thread interleaves its flows in 16 KiB chunks so they progress together, and a flow's rate is
// its thread's fastest repetition (every thread copies at once; a repetition the scheduler delayed
// is not the copy's rate). Bounded: every wait gives up after
// wait_timeout_s (the pattern is then skipped, saying so), and the patterns left once budget_s is
// spent are skipped.
#pragma once

#include <cstddef>
#include <vector>

#include "sol/pattern_rates.hpp"
#include "sol/probe_plan.hpp"

namespace arbench::sol {

struct HostProbeOptions {
  std::vector<std::size_t> sizes = {std::size_t{64} << 10};  // per flow and repetition
  int repetitions = 2;
  int latency_rounds = 16;
  double wait_timeout_s = 2.0;
  double budget_s = 2.0;
};

// The rates of `plan` (patterns over CPU ranks 0..ranks-1).
PatternRates run_host_pattern_probe(const std::vector<PlannedPattern>& plan, int ranks, const HostProbeOptions& opt);

}  // namespace arbench::sol
