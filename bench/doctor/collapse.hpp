// The posted-write collapse probe's patterns and verdict (host half; the GPUs run the patterns in
// topo/gpu/pattern_probe.cu). On some platforms posted writes collapse when several GPUs write
// across root ports at once (52 -> 7 GB/s per pair reported on one Microchip-switch + Threadripper
// Pro box, 37 -> 2.7 GB/s on a Broadcom + dual-Turin box) while reads keep their speed: there a
// pull all-reduce beats a push one however the push kernel is written.
//
// Method: for every ordered pair (i, j), the write (GPU i stores into j) and the read (GPU j loads
// from i) alone, one pair at a time; then every GPU at once, writing and then reading, in N-1
// rounds: round k moves i -> (i+k) mod N for every i, so each GPU sends one flow and receives one,
// as when a pair runs alone, and every ordered pair is measured once under load. The ratio of a
// pair's loaded rate to its alone rate is taken per pair; the verdict uses their medians.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/check.hpp"
#include "topo/pattern.hpp"

namespace arbench::doctor {

using Matrix = std::vector<std::vector<std::optional<double>>>;  // [from][to], GB/s

struct CollapseFigures {
  int gpus = 0;
  std::vector<std::string> labels;
  std::uint64_t bytes = 0;
  int repetitions = 0;
  Matrix write_alone, write_loaded, read_alone, read_loaded;
  std::vector<std::string> notes;  // pairs left out and why (no P2P, broken, budget spent)
};

// Below this loaded/alone ratio a direction collapsed; at or above kHolds it held.
inline constexpr double kCollapsed = 0.5, kHolds = 0.8;

struct CollapseVerdict {
  Verdict verdict = Verdict::unknown;
  std::optional<double> write_ratio, read_ratio;  // medians over the pairs measured both ways
  bool pull_beats_push = false;
  int pairs = 0;                       // pairs with all four figures
  int worst_from = -1, worst_to = -1;  // the pair whose writes fell most
  std::string summary;                 // one sentence with the figures
};

// The patterns the probe runs over `ok` pairs (ok[i][j]: i may write into / be read by j), in
// order: every pair's write alone, its read alone, then the N-1 write rounds and N-1 read rounds.
std::vector<topo::Pattern> collapse_patterns(const std::vector<std::vector<int>>& ok);

// The figures from those patterns' results (same order as collapse_patterns).
CollapseFigures collapse_figures(const std::vector<std::vector<int>>& ok, const std::vector<topo::Pattern>& patterns,
                                 const std::vector<topo::PatternResult>& results, std::uint64_t bytes, int reps);

CollapseVerdict judge_collapse(const CollapseFigures& f);

nlohmann::json collapse_to_json(const CollapseFigures& f, const CollapseVerdict& v);

}  // namespace arbench::doctor
