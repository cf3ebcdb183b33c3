// tune: from one result, the fastest variant at every measured size (or token count), by how much
// it beats the runner-up, whether that margin is statistically real, where the winner changes,
// and a dispatch table an inference engine can load (schema in docs/regression.md).
// Tables are per (family, dtype, world size[, hidden], in-place): the axis is bytes for
// allreduce and tokens for allreduce_rmsnorm (one table per hidden size), so crossovers lie on
// one line; in-place and out-of-place runs of a variant are different candidates.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "arbench/core/peer_dispatch.hpp"
#include "arbench/variant.hpp"
#include "results/result_file.hpp"

namespace arbench {

struct TunePoint {
  std::uint64_t size = 0;       // bytes or tokens
  std::string best, runner_up;  // runner_up empty when only one variant ran at this size
  double best_us = 0, runner_up_us = 0;
  double margin = 0;            // runner_up_us / best_us - 1 (0.25 = runner-up 25% slower)
  double p_value = 1;           // Mann-Whitney, best vs runner-up samples
  bool significant = false;     // p_value < alpha
  int candidates = 0;           // variants measured at this size
  // The result says pull beats push on this box (ResultFile::pull_beats_push), and the pull twin
  // of the fastest push variant was not significantly slower: the twin is `best` instead, and the
  // push variant the runner-up (so margin is negative).
  bool preferred_pull = false;
  // The fastest was tied within the noise (not significantly different, and the medians' 95%
  // intervals overlap) by a variant that takes fewer SMs:
  // that one is `best` instead, and the fastest the runner-up (a negative margin).
  bool preferred_fewer_sms = false;
  int best_sms = -1, runner_up_sms = -1;  // the SMs each takes (docs/output.md, "sms"); -1 unknown
};

// The winner changes between two adjacent measured sizes.
struct Crossover {
  std::string from, to;
  std::uint64_t last_from = 0, first_to = 0;
};

// Use `variant` for sizes <= max_size (the largest measured size it won in a run of wins);
// the last rule has no bound.
struct DispatchRule {
  std::uint64_t max_size = 0;
  bool unbounded = false;
  std::string variant;
};

struct TuneTable {
  std::string family, dtype, axis;  // axis: "bytes" | "tokens"
  int world = 0;
  int hidden = 0;  // allreduce_rmsnorm only
  bool in_place = false;
  bool cold_cache = false;  // from --cache cold runs: a separate table, never mixed with hot
  std::vector<TunePoint> points;
  std::vector<Crossover> crossovers;
  std::vector<DispatchRule> rules;
  // The islands the table's island variants ran on (their case settings), which an engine
  // dispatching to them must use too; empty when the table has no island variant.
  std::string islands;
};

// The referee's verdict (docs/regression.md, "arbench against the engines"): at a size (or token
// count) and GPU count where a peer ran as its engine runs it (arbench/core/peer_dispatch.hpp,
// peer_as_engine_runs_it), arbench's fastest own variant against that engine's choice, and whether
// arbench is at least as fast there. NCCL is neither side: it is the engines' default, which the
// tables already rank.
struct RefereePoint {
  std::string family, dtype, axis;  // the table's, as in TuneTable
  int world = 0, hidden = 0;
  bool in_place = false, cold_cache = false;
  std::uint64_t size = 0;  // bytes or tokens
  std::string peer;        // the peer as its engine runs it ("flashinfer-pcie-ipc")
  std::string engine_case; // the peer's case the engine's choice is (its fastest so run)
  double engine_us = 0;
  std::string arbench_best;  // arbench's fastest own variant at this point
  double arbench_us = 0;
  double p_value = 1;        // Mann-Whitney, arbench's samples against the engine's
  bool significant = false;  // p_value < alpha
  // The goal: arbench's best at least as fast, i.e. not significantly slower.
  bool met() const { return arbench_us <= engine_us || !significant; }
};

struct TuneReport : ResultSource {
  double alpha = 0.01;
  std::vector<TuneTable> tables;  // sorted by family, dtype, world, hidden, in_place, cache
  std::vector<std::string> ignored;  // failed cases, names without a shape
  bool prefer_pull = false;          // the result's pull_beats_push (`arbench run --doctor`)
  // Every peer of the result (docs/variants.md, "Peers") and the engine that runs it so
  // (peer_engine_label), whether it competed or was left out.
  std::map<std::string, std::string> peer_labels;
  // arbench's best against each peer as its engine runs it, where both ran (referee_points).
  std::vector<RefereePoint> referee;
};

// Why a variant cannot be named in a dispatch table (empty when it can), as the end of "not a
// dispatch candidate, ...": `arbench tune` asks the variant registry whether the variant exists on
// the cuda backend ("not on the cuda backend: ..."), so `reference` (the host yardstick) and any
// other host-only or unknown variant never wins a size; and, for a peer, whether an engine runs it
// at that world size ("no engine selects it: ...": a forced schedule or stage, vLLM's custom
// all-reduce above two GPUs without NVLink). `at`: the case's world size and whether the result
// records every GPU pair of it NVLink-connected.
using DispatchFilter = std::function<std::string(const std::string& variant, DispatchPlace at)>;
// That filter from a variant registry: a variant the registry cannot run on the cuda backend is out;
// a peer competes wherever an engine runs it (peer_not_dispatchable, the rule `settings` gates the
// engines' switches with), whether or not this arbench was built with it (the result may come from
// one that was).
DispatchFilter registry_dispatch_filter(const Registry& reg);

// Throws UsageError when no case of `result` has a known shape and a dispatchable variant.
// An empty `not_dispatchable` lets every variant compete. The cases of an NCCL library measured
// beside the run's default (`nccl@<label>`, --nccl-lib) never compete: an engine loads one NCCL;
// they are listed in `ignored`, pointing at `compare --between` and `settings`.
TuneReport tune_results(const ResultFile& result, double alpha, const DispatchFilter& not_dispatchable = {});

// Every point of `result` where a peer ran as its engine runs it and an arbench variant ran too,
// ordered as tune's tables, then size, then peer; arbench's own variants compete only where
// `not_dispatchable` lets them (so `reference` never does). tune_results fills TuneReport::referee.
std::vector<RefereePoint> referee_points(const ResultFile& result, double alpha,
                                         const DispatchFilter& not_dispatchable = {});


}  // namespace arbench
