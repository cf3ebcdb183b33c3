// A traffic pattern: the flows that move data between GPUs at the same time, and what each one
// achieved. The host half of the pattern probe (topo/gpu/pattern_probe.cu runs a pattern on the
// GPUs): value types only, so the patterns a caller builds and the figures it judges are tested
// without a device. `arbench doctor`'s posted-write collapse probe runs one pair alone and every
// GPU at once, writing (push) and reading (pull); a schedule's own pattern (one-shot: every GPU
// to every peer; ring: neighbours) is the same kind of value.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
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
};

struct PatternResult {
  std::string name;
  std::vector<std::optional<double>> gbps;  // per flow, in the pattern's order; null: not measured
  std::optional<std::string> skipped;       // why nothing was measured (time budget spent, no P2P, ...)
};

struct PatternProbeOptions {
  std::size_t bytes = std::size_t{16} << 20;  // per flow and repetition (16-byte packs)
  int repetitions = 3;                        // after one untimed warm-up episode
  double wait_timeout_s = 5.0;                // bound on the start gate and on each episode's finish
  double budget_s = 20.0;                     // patterns left when it is spent are skipped, saying so
};

}  // namespace arbench::topo
