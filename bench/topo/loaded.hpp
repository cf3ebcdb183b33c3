// Loaded links (`arbench topo --loaded`), the host half: what the probe measured while every
// GPU moved data to (push) or from (pull) every peer at once, the arithmetic on it (per-GPU and
// aggregate GB/s, the worst link under load beside its idle figure, the dense-interconnect
// score) and its text and JSON. Host-only, fixture-tested; the CUDA half is probe_loaded.cu.
//
//   dense-interconnect score = aggregate GB/s under load / (N·(N−1) · mean idle link GB/s)
//                            = aggregate / the sum of the idle links the pattern used
// 1.0 would be a full mesh: every link at its idle speed at once. On PCIe each GPU's own x16
// link caps its share, so a box whose fabric adds no contention beyond that scores about
// 1/(N−1); per_gpu_link_score = score · (N−1) normalises by N links instead (p2pmark's
// "dense interconnect score", 1.0 = every GPU moves data at its idle link speed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "topo/links.hpp"

namespace arbench::topo {

// The patterns, in the order they run; each compares with one idle matrix.
inline constexpr std::string_view kLoadedCePush = "ce_push";  // cudaMemcpyPeerAsync on the source GPU
inline constexpr std::string_view kLoadedCePull = "ce_pull";  // cudaMemcpyPeerAsync on the destination GPU
inline constexpr std::string_view kLoadedSmPush = "sm_push";  // one kernel per GPU stores into every peer
inline constexpr std::string_view kLoadedSmPull = "sm_pull";  // one kernel per GPU loads from every peer
// The headline score's pattern: every GPU reads every peer with the copy engines, as p2pmark.
inline constexpr std::string_view kLoadedScorePattern = kLoadedCePull;

// What the probe timed for one pattern. Cell [i][j]: the link from GPU i to GPU j, in ms from
// the common start to that link's last byte; gpu_ms[i]: from the start to GPU i's last link.
struct LoadedTimes {
  std::vector<std::vector<std::optional<double>>> link_ms;
  std::vector<std::optional<double>> gpu_ms;
  std::vector<std::string> notes;        // why cells are null
  std::optional<std::string> skipped;    // why the whole pattern did not run
};

struct LoadedPattern {
  std::string name, method, idle_matrix;
  bool pull = false;  // GPU i reads its column (pull) or writes its row (push)
  LinkMatrix links;   // GB/s of each link while all of them are busy
  std::vector<std::optional<double>> gpu_gbps;  // per GPU: bytes out (push) or in (pull) / its time
  std::optional<double> aggregate_gbps;          // every byte moved / the slowest GPU's time
};

struct LoadedLinks {
  std::uint64_t bytes = 0;  // per link and repetition
  int repetitions = 0;
  std::vector<LoadedPattern> patterns;
  LinkMatrix latency_us;              // one-way latency while `latency_load` runs
  std::string latency_load;
  std::optional<std::string> skipped;  // why nothing was measured (e.g. fewer than 2 GPUs)
};

// Bytes × repetitions over the times; `bytes` is per link and repetition.
LoadedPattern loaded_pattern(std::string_view name, std::string method, std::string_view idle_matrix, bool pull,
                             std::uint64_t bytes, int repetitions, const LoadedTimes& times);

struct LoadedSummary {
  std::string pattern;
  int links = 0;                          // links measured under load
  std::optional<double> aggregate_gbps;
  std::optional<double> ideal_gbps;       // sum of the idle values of those links
  std::optional<double> idle_mean_gbps;
  std::optional<double> score;            // aggregate / ideal
  std::optional<double> per_gpu_link_score;  // score · (N−1)
  std::optional<double> min_gpu_gbps, max_gpu_gbps;
  int worst_from = -1, worst_to = -1;     // the slowest link under load
  std::optional<double> worst_gbps, worst_idle_gbps;
  std::string why;                        // when score is absent
};

// Compares `p` with the idle matrix it names in `idle` (from the same run).
LoadedSummary summarize_loaded(const LoadedPattern& p, const Links& idle);

struct LoadedLatencySummary {
  std::optional<double> idle_median_us, loaded_median_us;
  int worst_from = -1, worst_to = -1;
  std::optional<double> worst_us, worst_idle_us;
};
LoadedLatencySummary summarize_loaded_latency(const LoadedLinks& l, const Links& idle);

// The section `arbench topo --loaded` prints: a summary table, the score with its arithmetic,
// the latency under load, then each pattern's matrix and per-GPU figures.
std::string render_loaded(const LoadedLinks& l, const Links& idle, const std::vector<std::string>& labels);

// The "loaded" object of `arbench topo --out` (schema in docs/topology.md): the measurements and,
// for readers that do not recompute them, the summaries and score. The reader takes the
// measurements and ignores the rest; `bus_count` is the number of GPUs (the matrices' size).
nlohmann::json loaded_to_json(const LoadedLinks& l, const Links& idle);
LoadedLinks loaded_from_json(const nlohmann::json& j, std::size_t bus_count, const std::string& where);

}  // namespace arbench::topo
