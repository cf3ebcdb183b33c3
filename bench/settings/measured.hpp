// The measurements settings are derived from: one or more result files of the same machine
// (several runs: e.g. the main sweep, then the channel sweep `arbench settings` asked for),
// merged, with their usable cases indexed by family, world size, size and variant.
//
// Usable: an arbench result of the cuda backend (settings for an engine from CPU timings or from
// virtual ranks on one GPU would be fiction), a successful case, out of place, hot cache, no
// arrival skew (what an engine's all-reduce is), of the asked dtype; the fused family at one
// hidden size. Everything left out is counted in `ignored`, with why.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/result_file.hpp"

namespace arbench {

struct Measured {
  // world -> size (bytes, or tokens for the fused family) -> variant -> case
  using Grid = std::map<int, std::map<std::uint64_t, std::map<std::string, const ResultCase*>>>;

  std::vector<std::string> paths;
  ResultFile facts;  // the first file's provenance (machine, NCCL), without its cases
  std::string dtype;
  int dtype_bytes = 2;
  int hidden = 0;    // the fused family's hidden size in use (0: no fused case)
  Grid allreduce, fused;
  std::vector<std::string> ignored;

  Measured() = default;
  Measured(const Measured&) = delete;
  Measured& operator=(const Measured&) = delete;

  // The case of `variant` at (world, size), or nullptr.
  const ResultCase* find(const Grid& g, int world, std::uint64_t size, const std::string& variant) const;
  // Worlds measured in either family, ascending.
  std::vector<int> worlds() const;
  // The smallest and largest allreduce size measured at any world (1K..64M when none).
  std::uint64_t min_bytes() const;
  std::uint64_t max_bytes() const;

 private:
  friend std::unique_ptr<Measured> load_measured(const std::vector<std::string>&, const std::string&,
                                                 std::optional<int>);
  std::vector<ResultCase> cases_;  // merged; the grids point into it
};

// Loads and merges `paths` (UsageError, exit 2, naming the file: unreadable, not a cuda-backend
// arbench result, another machine's fingerprint, no usable case of `dtype`). `hidden`: the fused
// family's hidden size; unset: the only one measured (several: UsageError listing them).
std::unique_ptr<Measured> load_measured(const std::vector<std::string>& paths, const std::string& dtype,
                                        std::optional<int> hidden);

// ---- the `arbench run` lines settings print where the results lack a measurement: each measures
// what is missing at the sizes the results already cover, into a file to give `arbench settings`
// beside the first.

// The NCCL configurations arbench forces (kernels/nccl: ring and tree with LL and Simple; LL128
// only where every GPU pair is NVLink-connected) and the channel counts to sweep.
inline constexpr const char* kNcclConfigVariants = "nccl,nccl[ring/ll],nccl[ring/simple],nccl[tree/ll],nccl[tree/simple]";
inline constexpr const char* kNcclChannelSweep = "1,2,4,8,16";

// 1024 -> "1K", 64 MiB -> "64M", 1000 -> "1000".
std::string size_arg(std::uint64_t bytes);

// `arbench run --backend cuda --gpus W --family allreduce --variants 'V' -b MIN -e MAX [extra] --out OUT`.
std::string allreduce_run_line(const Measured& m, int world, const std::string& variants, const std::string& extra,
                               const std::string& out);
// The fused family at the result's hidden size (8192 when none), 1..2048 tokens.
std::string fused_run_line(const Measured& m, int world, const std::string& out);

}  // namespace arbench
