// What the pattern probe measured for the speed-of-light floor (the patterns of probe_plan.hpp): per
// pattern, every flow's rate at each size by SM copies and by copy engines, and the one-way flag
// latency of its hops while it ran. `arbench topo` records it in its file (the "patterns" object,
// docs/topology.md); `arbench run` reads it back (--links FILE) or probes at its start, and prices
// every case's traffic with it (floor.hpp). Host-only; the GPU probe is topo/gpu/pattern_probe.cu,
// the CPU one host_probe.hpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/traffic.hpp"
#include "sol/probe_plan.hpp"
#include "topo/pattern.hpp"

namespace arbench::sol {

inline constexpr std::string_view kPatternRatesSchema = "arbench-patterns/1";

// One pattern at one size.
struct SizeRates {
  std::uint64_t bytes = 0;                              // per flow and repetition
  std::vector<std::optional<double>> sm_gbps, ce_gbps;  // per flow (ce: empty when not measured)
};

struct MeasuredPattern {
  std::string key;  // pattern_key(): "w8 all-pairs pull"
  TrafficShape shape = TrafficShape::all_pairs;
  TrafficDirection direction = TrafficDirection::pull;
  int world = 0;
  std::vector<std::pair<int, int>> flows;  // (from, to): positions in PatternRates::positions
  std::vector<SizeRates> sizes;
  std::vector<std::pair<int, int>> latency_pairs;
  std::vector<std::optional<double>> latency_us;  // one-way, per latency pair, under the pattern
  std::vector<std::optional<double>> idle_latency_us;  // one-way, per latency pair, nothing running
  std::vector<std::string> notes;                 // why a rate or a latency is null
  std::optional<std::string> skipped;             // why nothing was measured

  // The fastest rate flow (from, to) reached, over the sizes and both engines; *mover says which
  // engine ("SM" or "copy engine"). nullopt when the pattern has no such flow or it was not measured.
  std::optional<double> flow_gbps(int from, int to, std::string* mover = nullptr) const;
  // The same, the fastest over every flow.
  std::optional<double> fastest_gbps(std::string* mover = nullptr) const;
  // The slowest hop measured under the pattern (every rank waits for its slowest peer).
  std::optional<double> slowest_hop_us() const;
  // The slowest of the pattern's hops measured with nothing running: the floor's hop.
  std::optional<double> slowest_idle_hop_us() const;
};

struct PatternRates {
  std::string timing = "gpu";  // "gpu", or "cpu": CPU threads (host backend), CPU timing
  std::string method;
  std::vector<std::string> positions;  // what a flow's position is: a GPU's PCI bus id, or "rank:3"
  int repetitions = 0;
  std::vector<MeasuredPattern> patterns;

  const MeasuredPattern* find(TrafficShape s, TrafficDirection d, int world) const;
};

// Adds one size's results of the plan's patterns (results in the plan's order) to `rates`; the
// first call makes the entries.
void add_size(PatternRates& rates, const std::vector<PlannedPattern>& plan, std::uint64_t bytes,
              const std::vector<topo::PatternResult>& results);

// The "patterns" object of a topo file (docs/topology.md); the reader throws UsageError naming
// `where` and what is wrong.
nlohmann::json pattern_rates_to_json(const PatternRates& r);
PatternRates pattern_rates_from_json(const nlohmann::json& j, const std::string& where);
// The "patterns" object of a topo file, or nullopt when it has none (older files, --no-measure).
std::optional<PatternRates> read_pattern_rates(const std::filesystem::path& file);

// One line per pattern: its flows, each engine's rate (min..max over the flows of each flow's
// fastest over the sizes), the slowest hop idle and under it; within 120 columns.
std::string render_pattern_rates(const PatternRates& r);

// Per world size of `worlds`, the fastest copy-engine rate one flow reached (GB/s) in any pattern
// measured at that world, over its sizes; a world without copy-engine rates is absent, and CPU
// timings (the host probe) give none. The copy-engine variants' default chunk follows it
// (Tuning::copy_engine_gbps, include/arbench/algo/ce/ce_policy.hpp).
std::map<int, double> copy_engine_rates(const PatternRates& r, const std::vector<int>& worlds);

}  // namespace arbench::sol
