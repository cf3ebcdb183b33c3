// RunConfig: everything `arbench run` / `arbench list` were asked for, after parsing.
// Unset optionals take backend-dependent defaults (see resolve_defaults).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "arbench/core/case.hpp"
#include "arbench/fabric.hpp"
#include "arbench/core/peer_access.hpp"
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
  // Adaptive sampling (any of these set; exclusive with --samples): see measure/sampling.hpp.
  std::optional<int> min_samples, max_samples;
  std::optional<double> max_noise_pct, min_time_s, max_time_s;
  bool cold_cache = false;  // --cache cold
  // --symm-mem auto|cuda|nccl|all: where the custom kernels' symmetric memory comes from on the
  // cuda backend (docs/variants.md, "Symmetric memory: two providers"); `all` runs each custom
  // kernel on both providers, as cases named .../symm:cuda and .../symm:nccl.
  std::string symm_mem = "auto";
  bool check = true;
  bool in_place = false;
  // Arrival skews to sweep, µs (--skew; docs/latency-breakdown.md): rank r starts
  // r/(world-1) * skew late. {0}: every rank together, the default.
  std::vector<double> skews_us = {0};
  bool phases = false;  // --phases: record each case's phase timeline (skewed cases always do)
  // --beside compute|fma|memory: each case measured again beside a background load (docs/method.md,
  // "Beside a model kernel"); empty: not.
  std::string beside;
  std::uint64_t seed = 1;
  bool quiet = false;
  bool wide = false;   // Google Benchmark's console table (every counter) instead of arbench's
  std::string filter;  // --benchmark_filter: extended regex on case names, '-' prefix negates
  std::string out_json, out_csv;
  std::string gbench_out;  // --benchmark_out=FILE: Google Benchmark's own report (checked like --out)
  double timeout_s = 10.0;
  std::string links_file;  // --links: link bandwidths from `arbench topo --out`
  std::string doctor_file;  // --doctor: `arbench doctor --out`'s report; its findings go into the provenance
  // --islands (bench/islands/island_spec.hpp), as typed; empty: the islands of the PCIe tree
  // (cuda backend) or two halves (host, single-gpu). Resolved per world size into
  // tuning.islands, with where they came from in islands_source.
  std::string islands;
  std::string islands_source;
  bool link_probe = true;  // measure links at start (cuda backend) unless --links or --no-link-probe
  bool sol = true;         // the speed-of-light floor of every case (bench/sol/); --no-sol: no floor, no probe
  bool dry_run = false;    // --dry-run: each case's floor on --links FILE's rates, nothing run (run/run_dry.hpp)
  Tuning tuning;
  std::string command_line;
  // The long names of the options typed on the command line ("--tokens"): an option that cannot
  // affect the sweep is refused (sweep/option_scope.hpp), never silently ignored.
  std::set<std::string> given;
  // --allow-ll128-pcie: offer nccl[*/ll128] on GPUs that are not all NVLink-connected
  // (measure/nccl/nccl_protocol_policy.hpp says why it is not offered by default).
  bool allow_ll128_pcie = false;
  // NCCL_ALGO / NCCL_PROTO as this process inherited them (filled by `arbench run`): NCCL reads
  // them too, so an inherited value that enables LL128 over PCIe is refused like a forced one.
  std::map<std::string, std::string> inherited_nccl_env;
  // --nccl-channels: each forced NCCL configuration selected also runs as nccl[<algo>/<proto>/ch:N]
  // for each N (docs/engine-settings.md, "The channel sweep").
  std::vector<int> nccl_channels;
  // --tuner-table: the table `nccl[tuned]` applies (checked, and copied into tuning, by resolve_defaults).
  std::string tuner_table;
  // --nccl-lib [NAME=]PATH, as typed, in order: NCCL-API libraries measured beside the default one,
  // each with its own variants `nccl@<label>` (kernels/fabric/nccl/nccl_libraries.hpp).
  std::vector<std::string> nccl_libs;
  // Per world size: every pair of GPUs 0..w-1 is NVLink-connected (filled by `arbench run` on the
  // cuda backend from NVML; absent means not known to be).
  std::map<int, bool> all_nvlink;
  // Hidden test switch (ARBENCH_TEST_ABSENT_RANK, docs/developing.md): this rank never launches
  // its ops, so its peers wait for a rank that never arrives. -1: off.
  int test_absent_rank = -1;
  // Hidden test switch (ARBENCH_TEST_BROKEN_P2P=a,b, docs/developing.md): the fabrics' peer check
  // sees that pair's peer-to-peer data go elsewhere, as on a box whose PCIe ports redirect it
  // (host: the twins' peer pointers of the pair lead to a sink; cuda: the probe's writes do).
  BrokenPair test_broken_p2p;
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

// Fill every unset field from backend_defaults(). Throws UsageError on inconsistent values:
// out-of-range numbers, a value listed twice in a list option (--gpus 2,2), a --ring-order
// that is not a permutation of every world size swept, a --tuner-table that is not a readable
// tuner table (its absolute path goes into cfg.tuning).
void resolve_defaults(RunConfig& cfg, Backend b, int gpus_present);

// tuning.islands and islands_source from --islands (checked: every rank once, all covered, the
// largest --gpus included; UsageError otherwise), else two halves off the cuda backend (the cuda
// run fills them from the PCIe tree). Called by resolve_defaults.
void resolve_islands(RunConfig& cfg, Backend b);

// Why --host-threads `threads` cannot run on backend `b` with `families` (empty when it can): the
// value, what is allowed (the launch policies' block sizes; the fused family's norm needs a
// divisor of its lanes) and what to do.
std::string host_threads_problem(int threads, Backend b, const std::vector<Family>& families);

// A list option's values as the user types them: {2, 4, 8} -> "2,4,8".
std::string join_ints(const std::vector<int>& v);

// True when --max-noise, --min-samples, --max-samples, --min-time or --max-time was given.
bool adaptive_sampling(const RunConfig& cfg);

// The configuration as recorded in the result JSON (`arbench.config`).
nlohmann::json config_to_json(const RunConfig& cfg);

// A display-attached GPU's driver kills any kernel running longer than its watchdog (a few
// seconds; cudaDevAttrKernelExecTimeout says the GPU has one). arbench's kernels spin for up to
// --timeout waiting for a peer, so on such a machine the bound is capped at kWatchdogTimeoutCap.
inline constexpr double kWatchdogTimeoutCap = 1.0;
struct TimeoutCap {
  double timeout_s;
  std::string warning;  // empty when --timeout was kept
};
TimeoutCap cap_timeout_for_watchdog(double asked_s, const std::vector<int>& watchdog_gpus);

// The hidden test switch ARBENCH_TEST_ABSENT_RANK (nullptr or empty: -1, off); throws UsageError
// for anything but a rank 0..7.
int parse_absent_rank(const char* text);
// The hidden test switch ARBENCH_TEST_BROKEN_P2P (nullptr or empty: none); throws UsageError for
// anything but two different ranks 0..7, "a,b".
BrokenPair parse_broken_pair(const char* text);

// 16 hex digits naming what the sweep measures (cases, shapes, cache state, sampling): two runs
// with the same key measure the same cases the same way. The nightly keys its baseline by it.
std::string sweep_key(const RunConfig& cfg);

}  // namespace arbench
