// CLI of `arbench run` (the default subcommand) and `arbench list`: every option, its default
// and its validation. The work itself is in run_command.cpp.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "arbench/core/errors.hpp"
#include "commands.hpp"
#include "arbench/core/models.hpp"
#include "sweep/sizes.hpp"
#include "run/run_command.hpp"

namespace arbench {
namespace {

// Sizes as nccl-tests takes them (64, 1K, 16M, 2G; binary multiples). CLI11's AsSizeValue
// would do, but its message does not name the bad value; parse_size's does (and is tested).
const CLI::Validator size_text(
    [](std::string& s) -> std::string {
      auto v = parse_size(s);
      if (!v) return "invalid size '" + s + "': use a byte count with an optional K, M or G suffix, e.g. 64K";
      s = std::to_string(*v);
      return {};
    },
    "SIZE");

void add_sweep_options(CLI::App& cmd, RunConfig& cfg, std::vector<std::string>& dtypes,
                       std::vector<std::string>& families, std::string& cache) {
  cmd.add_option("--backend", cfg.backend,
                 "auto: cuda when a GPU is present, else host. cuda: one rank per GPU with NCCL. "
                 "single-gpu: N virtual ranks on GPU 0 (custom kernels only). host: CPU threads run "
                 "the host twins (CPU timings)")
      ->check(CLI::IsMember({"auto", "cuda", "single-gpu", "host"}))
      ->capture_default_str();
  cmd.add_option("--gpus", cfg.gpus,
                 "world sizes, comma-separated (default: cuda: every power of two up to the GPUs present, "
                 "and the total; single-gpu and host: 2,4,8)")
      ->delimiter(',');
  cmd.add_option("-b,--min-bytes", cfg.min_bytes, "smallest message, K/M/G suffixes (default 1K)")
      ->transform(size_text);
  cmd.add_option("-e,--max-bytes", cfg.max_bytes,
                 "largest message, K/M/G suffixes (default: 64M on GPUs, 1M on the host backend)")
      ->transform(size_text);
  cmd.add_option("-f,--step-factor", cfg.step_factor, "multiply the size by this between steps (> 1)")
      ->capture_default_str();
  cmd.add_option("--dtype", dtypes, "element types, comma-separated: bf16, fp16, fp32 (default bf16)")
      ->delimiter(',')
      ->check(CLI::IsMember({"bf16", "fp16", "fp32"}));
  cmd.add_option("--variants", cfg.variants,
                 "variant names or globs, comma-separated, e.g. 'oneshot-*,nccl' or 'nccl[ring/ll]' "
                 "(default: every variant of the selected families; `arbench list` shows them)")
      ->delimiter(',');
  cmd.add_option("--family", families, "families to sweep: allreduce, allreduce_rmsnorm, all (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"allreduce", "allreduce_rmsnorm", "all"}));
  cmd.add_option("--tokens", cfg.tokens, "fused family: token counts (default 1,2,4,...,256)")->delimiter(',');
  auto* hidden = cmd.add_option("--hidden", cfg.hidden, "fused family: hidden size, >= 1 (default 8192, or --model's)");
  std::string models;
  for (const auto& m : kModelPresets) models += std::string(models.empty() ? "" : ", ") + std::string(m.name);
  cmd.add_option("--model", cfg.model, "fused family: hidden size of a model preset: " + models)->excludes(hidden);
  cmd.add_option("--eps", cfg.tuning.eps, "fused family: RMSNorm epsilon")->capture_default_str();
  cmd.add_option("--warmup", cfg.warmup, "untimed ops per case before the first check (default: 5; host 2)");
  cmd.add_option("--samples", cfg.samples, "timed isolated samples per case, exactly (default: 50; host 10)");
  cmd.add_option("--max-noise", cfg.max_noise_pct,
                 "adaptive sampling: take samples until the 95% confidence interval of the median is narrower "
                 "than this percentage of it (1 or 1%; default when adaptive: 1, host 5)")
      ->transform(strip_percent);
  cmd.add_option("--min-samples", cfg.min_samples, "adaptive sampling: at least this many samples (default 10)");
  cmd.add_option("--max-samples", cfg.max_samples,
                 "adaptive sampling: at most this many samples (default: 1000; host 200)");
  cmd.add_option("--min-time", cfg.min_time_s,
                 "adaptive sampling: keep sampling until the samples add up to this many seconds (default 0)");
  cmd.add_option("--max-time", cfg.max_time_s,
                 "adaptive sampling: wall-clock budget per case in seconds (default: 5; host 2); "
                 "--min-samples is honoured past it");
  cmd.add_option("--cache", cache,
                 "hot: each sample finds its buffers in cache, as an all-reduce whose input the layer before "
                 "just wrote; cold: every GPU's L2 (host: the CPU caches) is flushed before each sample, "
                 "outside the timed region; the case name gets /cold")
      ->check(CLI::IsMember({"hot", "cold"}))
      ->capture_default_str();
  cmd.add_option("--pipelined-ops", cfg.pipelined_ops,
                 "ops back to back (one CUDA graph) per pipelined sample; 0 skips the pipelined regime "
                 "(default: 20; host 4)");
  cmd.add_flag("!--no-check", cfg.check, "skip the correctness checks (results are then unverified)");
  cmd.add_flag("--in-place", cfg.in_place, "allreduce output overwrites its input");
  cmd.add_option("--skew", cfg.skews_us,
                 "arrival skews to sweep, microseconds, comma-separated: rank r starts r/(N-1)*US late; a skewed "
                 "case is named .../skew:US and reports its latency after the last arrival (default 0)")
      ->delimiter(',');
  cmd.add_flag("--phases", cfg.phases,
               "record each case's phase timeline on a few extra ops after the timed ones: JSON 'phases', a "
               "breakdown per case on the console (docs/latency-breakdown.md)");
  cmd.add_option("--seed", cfg.seed, "seed of the oracle inputs")->capture_default_str();
  cmd.add_option("--timeout", cfg.timeout_s, "bound in seconds on any wait for a peer")->capture_default_str();
  cmd.add_option("--blocks", cfg.tuning.blocks, "custom kernels: blocks per rank (default: the variant's policy)");
  cmd.add_option("--host-threads", cfg.tuning.host_threads,
                 "host backend: run every block of the CPU twins as this many threads, all blocks of all ranks at "
                 "once, with real block barriers (block-faithful; slower). Default 0: one thread per rank runs its "
                 "blocks in turn");
  cmd.add_option("--ring-chunk", cfg.tuning.ring_chunk, "ring: chunk size in bytes (default: policy)")
      ->transform(size_text);
  cmd.add_option("--ring-channels", cfg.tuning.ring_channels, "ring: independent rings (default: policy)");
  cmd.add_option("--ring-order", cfg.tuning.ring_order,
                 "ring: rank order, e.g. 0,1,3,2 (default: follow the PCIe tree on the cuda backend, else rank order)")
      ->delimiter(',');
  cmd.add_option("--links", cfg.links_file,
                 "link bandwidths from `arbench topo --out FILE.json`, the denominator of the efficiency counter "
                 "(default: a short copy-engine probe at start on the cuda backend)")
      ->check(CLI::ExistingFile);
  cmd.add_flag("!--no-link-probe", cfg.link_probe, "no link probe at start (no efficiency counter without --links)");
  cmd.add_option("--islands", cfg.islands,
                 "island variants: the islands of the ranks, e.g. 0-3,4-7 (two switches of four) or 0-2,3-7; every "
                 "rank once (default: the PCIe tree's on the cuda backend, else two halves)");
  cmd.add_flag("--allow-ll128-pcie", cfg.allow_ll128_pcie,
               "run nccl[*/ll128] although the GPUs are not all NVLink-connected (NCCL then runs LL128 over PCIe, "
               "where 128-byte stores may tear: unsafe)");
}

void to_config(RunConfig& cfg, const std::vector<std::string>& dtypes, const std::vector<std::string>& families,
               const std::string& cache) {
  cfg.cold_cache = cache == "cold";
  if (!dtypes.empty()) {
    cfg.dtypes.clear();
    for (const auto& d : dtypes) cfg.dtypes.push_back(*parse_dtype(d));
  }
  if (!families.empty()) {
    cfg.families.clear();
    for (const auto& f : families) {
      if (f == "all") {
        cfg.families = {Family::allreduce, Family::allreduce_rmsnorm};
        break;
      }
      cfg.families.push_back(*parse_family(f));
    }
  }
}

}  // namespace

// --benchmark_filter selects cases for both subcommands (sweep/sweep.hpp filter_sweep).
void add_run_commands(CLI::App& app, int& exit_code, const std::string& command_line, World& world) {
  // Parsed values, shared by both subcommands (only one runs per invocation) and kept alive
  // by the callbacks that read them.
  struct Parsed {
    RunConfig cfg;
    std::vector<std::string> dtypes, families;
    std::string cache = "hot";
  };
  auto parsed = std::make_shared<Parsed>();
  parsed->cfg.command_line = command_line;
  RunConfig& cfg = parsed->cfg;
  auto& dtypes = parsed->dtypes;
  auto& families = parsed->families;

  auto* run = app.add_subcommand("run", "run the sweep (the default subcommand): console table, JSON, CSV");
  add_sweep_options(*run, cfg, dtypes, families, parsed->cache);
  run->add_option("--out", cfg.out_json, "write the results JSON here (atomically)");
  run->add_option("--csv", cfg.out_csv, "write one CSV line per case here");
  run->add_flag("-q,--quiet", cfg.quiet, "no console table; errors, the footer and (on a terminal) progress only");
  run->add_flag("--wide", cfg.wide,
                "Google Benchmark's console table with every counter instead of arbench's 120-column one "
                "(also --benchmark_format=console)");
  run->callback([&exit_code, &world, parsed] {
    to_config(parsed->cfg, parsed->dtypes, parsed->families, parsed->cache);
    parsed->cfg.filter = benchmark::GetBenchmarkFilter();
    exit_code = run_sweep(parsed->cfg, false, world);
  });

  auto* list = app.add_subcommand("list", "print the cases a run would execute, one a line, and why any is skipped");
  add_sweep_options(*list, cfg, dtypes, families, parsed->cache);
  list->callback([&exit_code, &world, parsed] {
    to_config(parsed->cfg, parsed->dtypes, parsed->families, parsed->cache);
    parsed->cfg.filter = benchmark::GetBenchmarkFilter();
    exit_code = run_sweep(parsed->cfg, true, world);
  });
}

}  // namespace arbench
