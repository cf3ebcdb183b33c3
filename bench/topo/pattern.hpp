// A traffic pattern: the flows that move data between GPUs at the same time, and what each one
// achieved. The host half of the pattern probe (topo/gpu/pattern_probe.cu runs a pattern on the
// GPUs): value types only, so the patterns a caller builds and the figures it judges are tested
// without a device. `arbench doctor`'s posted-write collapse probe runs one pair alone and every
// GPU at once, writing (push) and reading (pull); a schedule's own pattern (one-shot: every GPU
// to every peer; ring: neighbours; bench/sol/probe_plan.hpp) is the same kind of value, measured
// with SM copies and copy engines, and with the flag latency of a hop while the pattern runs and
// with nothing running.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace arbench::topo {

// Data moves from GPU `from` to GPU `to` (indices into the probe's GPU list). Push: a kernel on
// `from` stores into `to`'s memory (posted writes); pull: a kernel on `to` loads from `from`'s
// memory (reads, flow-controlled by completions).
struct Flow {
  int from = 0, to = 0;
  bool pull = false;
};

// Flows that run at once, all starting behind one start gate.
struct Pattern {
  std::string name;
  std::vector<Flow> flows;
  // Ordered pairs (x, y) whose one-way flag latency x -> y is measured while the pattern's flows
  // run (with copy engines, so the SMs stay free for the ping-pong), and with nothing running: the
  // hop a schedule of this pattern waits on. Measured when PatternProbeOptions::latency_rounds > 0.
  std::vector<std::pair<int, int>> latency_pairs = {};
};

struct PatternResult {
  std::string name;
  std::vector<std::optional<double>> gbps;  // SM copies, per flow in the pattern's order; null: not measured
  std::optional<std::string> skipped;       // why nothing was measured (time budget spent, no P2P, ...)
  std::vector<std::optional<double>> ce_gbps = {};     // copy engines, per flow (options.copy_engine)
  std::vector<std::optional<double>> latency_us = {};  // per latency pair (options.latency_rounds > 0)
  std::vector<std::string> notes = {};                 // why a copy-engine rate or a latency is null
  // per latency pair, nothing else running: the least a hop costs (a small message's own flags
  // cross idle links), what the speed-of-light floor prices
  std::vector<std::optional<double>> idle_latency_us = {};
};

struct PatternProbeOptions {
  std::size_t bytes = std::size_t{16} << 20;  // per flow and repetition (16-byte packs)
  int repetitions = 3;                        // after one untimed warm-up episode
  double wait_timeout_s = 5.0;                // bound on the start gate and on each episode's finish
  double budget_s = 20.0;                     // patterns left when it is spent are skipped, saying so
  bool copy_engine = false;  // also each flow by copy engine: cudaMemcpyPeerAsync on a stream of its own
  int latency_rounds = 0;    // > 0: ping-pong round trips per latency pair, idle and under the copy-engine load
};

}  // namespace arbench::topo
