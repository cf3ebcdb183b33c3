// Measured link matrices (written by `arbench topo --out`, read back by `arbench run --links`)
// and the slowest link an algorithm uses, the denominator of the efficiency counter:
//   efficiency = achieved busbw / slowest_link_gbps(links used by the algorithm).
// Host-only. Matrix element [i][j] is data moving from device i to device j; indices are the
// CUDA device ordinals at measurement time, whose PCI bus ids are recorded beside them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace arbench::topo {

// Matrix names written by topo (all GB/s = 1e9 bytes/s, except latency_us).
inline constexpr std::string_view kCeUnidir = "ce_unidir_gbps";      // cudaMemcpyPeerAsync, one way
inline constexpr std::string_view kCeBidir = "ce_bidir_gbps";        // both ways at once, sum
inline constexpr std::string_view kPushUnidir = "push_unidir_gbps";  // SM stores into peer memory
inline constexpr std::string_view kPushBidir = "push_bidir_gbps";
inline constexpr std::string_view kPullUnidir = "pull_unidir_gbps";  // SM loads from peer memory
inline constexpr std::string_view kPullBidir = "pull_bidir_gbps";
inline constexpr std::string_view kLatency = "latency_us";           // one-way, SM flag ping-pong
inline constexpr std::string_view kLinksSchema = "arbench-links/1";
// The default denominator: one-way copy-engine bandwidth, the number p2pBandwidthLatencyTest
// and nvbandwidth report, so efficiencies compare across tools.
inline constexpr std::string_view kDefaultEfficiencyMatrix = kCeUnidir;

struct LinkMatrix {
  std::string method;  // how it was measured, in words
  std::string unit;    // "GB/s" or "us"
  std::uint64_t bytes = 0;
  int repetitions = 0;
  std::vector<std::vector<std::optional<double>>> values;  // null: not measured (diagonal, no P2P)
  std::optional<std::string> skipped;                      // why the whole matrix is empty
  std::vector<std::string> notes;                          // why single cells are null
};

struct Links {
  std::vector<std::string> bus_ids;  // index = CUDA device ordinal when measured
  std::map<std::string, LinkMatrix, std::less<>> matrices;
};

enum class LinkPattern : std::uint8_t {
  kRing,      // ranks[k] -> ranks[k+1], and the last back to the first
  kAllPairs,  // every ordered pair (one-shot, two-shot)
};

nlohmann::json links_to_json(const Links& links);

// One matrix: {"method", "unit", "bytes", "repetitions", "values", "skipped"?, "notes"?}; the
// reader wants an n x n "values" (or an empty one with "skipped") and throws UsageError naming
// `where` otherwise. Also used for the loaded-links matrices (topo/loaded.hpp).
nlohmann::json link_matrix_to_json(const LinkMatrix& m);
LinkMatrix link_matrix_from_json(const nlohmann::json& j, std::size_t n, const std::string& where);

// Accepts the links object itself or a whole `topo --out` file holding it under "links".
// Throws UsageError (exit 2) naming the file and what is wrong.
Links links_from_json(const nlohmann::json& j, const std::string& where = "links JSON");
Links read_links_file(const std::filesystem::path& file);

// Positions in the links file of the GPUs with these bus ids (e.g. the run's ranks), so a
// file measured under another CUDA_VISIBLE_DEVICES still applies; -1 where a GPU is absent.
std::vector<int> link_indices_for_bus_ids(const Links& links, const std::vector<std::string>& bus_ids);

// Smallest value of `matrix` over the links `pattern` uses between `ranks` (device ordinals).
// nullopt, with the reason in *why, when fewer than 2 ranks, an unknown matrix, a rank out of
// range, or a link that was not measured.
std::optional<double> slowest_link_gbps(const Links& links, std::span<const int> ranks, LinkPattern pattern,
                                        std::string_view matrix = kDefaultEfficiencyMatrix,
                                        std::string* why = nullptr);

// The matrix as a table with a title line stating name, method, size, repetitions and unit;
// labels name the devices (rows = source, columns = destination); null cells print "-".
std::string render_link_matrix(std::string_view name, const LinkMatrix& m, const std::vector<std::string>& labels);

// Convenience for a run: the slowest link among GPUs given by bus id, in the order the
// algorithm walks them (ring order for kRing). Virtual ranks sharing one GPU use the diagonal
// (a copy within that GPU).
std::optional<double> slowest_link_for_bus_ids(const Links& links, const std::vector<std::string>& bus_ids,
                                               LinkPattern pattern, std::string_view matrix = kDefaultEfficiencyMatrix,
                                               std::string* why = nullptr);

// Which links a variant uses: `ring`, `nccl`, `nccl-symm` and `unfused-nccl` pass data to the
// next rank (NCCL's single-node all-reduce is ring-based on PCIe); every one-shot and two-shot
// variant exchanges with every peer.
LinkPattern link_pattern_for_variant(std::string_view variant);

// busbw / slowest link, or nullopt when the slowest link is unknown or not positive.
std::optional<double> link_efficiency(double busbw_gbps, std::optional<double> slowest_gbps);

}  // namespace arbench::topo
