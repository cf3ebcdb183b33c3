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
  int hidden = 0;           // fused family; 0 = default (or --model)
  std::string model;
  std::optional<int> warmup, samples, pipelined_ops;
  // Adaptive sampling (any of these set; exclusive with --samples): see run/sampling.hpp.
  std::optional<int> min_samples, max_samples;
  std::optional<double> max_noise_pct, min_time_s, max_time_s;
  bool cold_cache = false;  // --cache cold
  bool check = true;
  bool in_place = false;
  std::uint64_t seed = 1;
  bool quiet = false;
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
  // adaptive sampling, when asked for
  int min_samples, max_samples;
  double max_noise_pct, max_time_s;
};
BackendDefaults backend_defaults(Backend b, int gpus_present);

// Fill every unset field from backend_defaults(). Throws UsageError on inconsistent values.
void resolve_defaults(RunConfig& cfg, Backend b, int gpus_present);

// True when --max-noise, --min-samples, --max-samples, --min-time or --max-time was given.
bool adaptive_sampling(const RunConfig& cfg);

// The configuration as recorded in the result JSON (`arbench.config`).
nlohmann::json config_to_json(const RunConfig& cfg);

// 16 hex digits naming what the sweep measures (cases, shapes, cache state, sampling): two runs
// with the same key measure the same cases the same way. The nightly keys its baseline by it.
std::string sweep_key(const RunConfig& cfg);

}  // namespace arbench
