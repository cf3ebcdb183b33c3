// RunConfig: everything `arbench run` / `arbench list` were asked for, after parsing.
// Unset optionals take backend-dependent defaults (see resolve_defaults).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "arbench/core/case.hpp"
#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"

namespace arbench {

struct RunConfig {
  std::string backend = "auto";  // auto | cuda | single-gpu | host (resolved before the sweep)
  std::vector<int> gpus;         // world sizes; empty = default for the backend
  std::optional<std::size_t> min_bytes, max_bytes;
  double step_factor = 2.0;
  std::vector<DType> dtypes = {DType::bf16};
  std::vector<std::string> variants;  // names or globs; empty = every variant of the families
  std::vector<Family> families = {Family::allreduce, Family::allreduce_rmsnorm};
  std::vector<int> tokens;  // fused family; empty = default
  std::optional<int> hidden;  // fused family; unset = --model's, else 8192
  std::string model;
  std::optional<int> warmup, samples, pipelined_ops;
  bool check = true;
  bool in_place = false;
  std::uint64_t seed = 1;
  bool quiet = false;
  bool wide = false;   // Google Benchmark's console table (every counter) instead of arbench's
  std::string filter;  // --benchmark_filter: extended regex on case names, '-' prefix negates
  std::string out_json, out_csv;
  double timeout_s = 10.0;
  std::string links_file;  // --links: link bandwidths from `arbench topo --out`
  bool link_probe = true;  // measure links at start (cuda backend) unless --links or --no-link-probe
  Tuning tuning;
  std::string command_line;
};

// Defaults that depend on the backend: chosen so the host backend's default run finishes in
// under 3 minutes on a 2-core machine, and GPU runs get nccl-tests-like coverage.
struct BackendDefaults {
  std::size_t min_bytes, max_bytes;
  int warmup, samples, pipelined_ops;
  std::vector<int> gpus;
};
BackendDefaults backend_defaults(Backend b, int gpus_present);

// Fill every unset field from backend_defaults(). Throws UsageError on inconsistent values:
// out-of-range numbers, a value listed twice in a list option (--gpus 2,2), a --ring-order
// that is not a permutation of every world size swept.
void resolve_defaults(RunConfig& cfg, Backend b, int gpus_present);

// The configuration as recorded in the result JSON (`arbench.config`).
nlohmann::json config_to_json(const RunConfig& cfg);

}  // namespace arbench
