// CLI of `arbench run` (the default subcommand) and `arbench list`: every option, its default
// and its validation (bench/cli: each value is checked when parsed, before any work). The work
// itself is in run_command.cpp.
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <limits>
#include <memory>
#include <string>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/ring/ring_policy.hpp"
#include "arbench/algo/symm_layout.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/core/models.hpp"
#include "cli/files.hpp"
#include "cli/gbench_flags.hpp"
#include "cli/values.hpp"
#include "commands.hpp"
#include "run/dry/run_dry.hpp"
#include "sol/pattern_rates.hpp"
#include "arbench/tuner/tuner_table.hpp"
#include "arbench/tuner/tuner_table_text.hpp"
#include "io/input_file.hpp"
#include "run/run_command.hpp"
#include "doctor/report.hpp"
#include "topo/links.hpp"

namespace arbench {
namespace {

// --tuner-table names a text file in the plugin's line format: each way it can be something else
// gets its own message (as the JSON inputs' do, io/input_file.hpp).
void check_tuner_table_file(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string expected = "; expected a tuner table written by `arbench settings` (arbench-nccl-tuner.table)";
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError(path + ": a folder, not a file" + expected);
  if (!fs::is_regular_file(path, ec)) throw UsageError(path + ": no such file" + expected);
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  if (s.find('\0') != std::string::npos) throw UsageError(path + ": a binary file, not a tuner table" + expected);
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (s[first] == '{' || s[first] == '[')) {
    const nlohmann::json doc = nlohmann::json::parse(s, nullptr, false);
    throw UsageError(wrong_document(path, doc, expected.substr(11), "JSON, not a tuner table"));
  }
  tuner::Table t;
  if (const std::string why = tuner::parse_table(s, t); !why.empty())
    throw UsageError(path + ": not a tuner table: " + why + expected);
}

}  // namespace

namespace {

// Upper bounds: values beyond them mean nothing a benchmark can do (a timeout of days, a sweep
// of more samples than a day holds), so a typo such as an extra zero is caught.
constexpr long double kMaxCount = 10'000'000;  // samples, warm-up ops
constexpr long double kMaxSeconds = 86'400;    // adaptive sampling's time budgets
constexpr long double kMaxTimeout = 3'600;     // one wait for a peer
constexpr long double kMaxBytes = 64.0L * (1ULL << 30);

void add_sweep_options(CLI::App& cmd, RunConfig& cfg, std::vector<std::string>& dtypes,
                       std::vector<std::string>& families, std::string& cache) {
  cli::choice(cmd, "--backend", cfg.backend, {"auto", "cuda", "single-gpu", "host"},
              "auto (default): cuda when a GPU is present, else host. cuda: one rank per GPU with NCCL. single-gpu: "
              "N virtual ranks on GPU 0 (custom kernels only). host: CPU threads run the host twins (CPU timings)");
  cli::int_list(cmd, "--gpus", cfg.gpus, "N", cli::ints(1, kMaxRanks),
                "world sizes (default: cuda: every power of two up to the GPUs present, and the total; single-gpu "
                "and host: 2,4,8)");
  cli::size(cmd, "-b,--min-bytes", cfg.min_bytes, cli::byte_sizes(1, kMaxBytes),
            "smallest message, K/M/G suffixes (default 1K)");
  cli::size(cmd, "-e,--max-bytes", cfg.max_bytes, cli::byte_sizes(1, kMaxBytes),
            "largest message, K/M/G suffixes (default: 64M on GPUs, 1M on the host backend)");
  cli::number(cmd, "-f,--step-factor", cfg.step_factor, "F", cli::above(1, 1024),
              "multiply the size by this between steps (default 2)");
  cli::choice_list(cmd, "--dtype", dtypes, {"bf16", "fp16", "fp32"}, "element types (default bf16)");
  cli::list<std::string>(cmd, "--variants", cfg.variants, "NAME", cli::name_items(),
                         "variant names or globs, e.g. 'oneshot-*,nccl' or 'nccl[ring/ll]' (default: every variant "
                         "of the selected families; `arbench list` shows them)");
  cli::choice_list(cmd, "--family", families, {"allreduce", "allreduce_rmsnorm", "all"},
                   "families to sweep (default all)");
  cli::int_list(cmd, "--tokens", cfg.tokens, "T", cli::ints(1, 65536),
                "fused family: token counts (default 1,2,4,...,256)");
  auto* hidden = cli::number(cmd, "--hidden", cfg.hidden, "H", cli::ints(1, 1 << 20),
                             "fused family: hidden size (default 8192, or --model's)");
  std::vector<std::string> models;
  std::string names;
  for (const auto& m : kModelPresets) {
    models.emplace_back(m.name);
    names += std::string(names.empty() ? "" : ", ") + std::string(m.name);
  }
  cli::choice(cmd, "--model", cfg.model, models, "fused family: the hidden size of a model preset: " + names, "NAME")
      ->excludes(hidden);
  cli::number(cmd, "--eps", cfg.tuning.eps, "X", cli::positive(1e6), "fused family: RMSNorm epsilon (default 1e-6)");
  cli::number(cmd, "--warmup", cfg.warmup, "N", cli::ints(0, kMaxCount),
              "untimed ops per case before the first check (default: 5; host 2)");
  cli::number(cmd, "--samples", cfg.samples, "N", cli::ints(1, kMaxCount),
              "timed isolated samples per case, exactly (default: 50; host 10)");
  cli::percent(cmd, "--max-noise", cfg.max_noise_pct, cli::positive(1000),
               "adaptive sampling: take samples until the 95% confidence interval of the median is narrower than "
               "this percentage of it (1 or 1%; default when adaptive: 1, host 5)");
  cli::number(cmd, "--min-samples", cfg.min_samples, "N", cli::ints(1, kMaxCount),
              "adaptive sampling: at least this many samples (default 10)");
  cli::number(cmd, "--max-samples", cfg.max_samples, "N", cli::ints(1, kMaxCount),
              "adaptive sampling: at most this many samples (default: 1000; host 200)");
  cli::number(cmd, "--min-time", cfg.min_time_s, "S", cli::reals(0, kMaxSeconds),
              "adaptive sampling: keep sampling until the samples add up to this many seconds (default 0)");
  cli::number(cmd, "--max-time", cfg.max_time_s, "S", cli::positive(kMaxSeconds),
              "adaptive sampling: wall-clock budget per case in seconds (default: 5; host 2); --min-samples is "
              "honoured past it");
  cli::choice(cmd, "--cache", cache, {"hot", "cold"},
              "hot (default): each sample finds its buffers in cache, as an all-reduce whose input the layer before "
              "just wrote; cold: every GPU's L2 (host: the CPU caches) is flushed before each sample, outside the "
              "timed region; the case name gets /cold");
  cli::choice(cmd, "--symm-mem", cfg.symm_mem, {"auto", "cuda", "nccl", "all"},
              "cuda backend, custom kernels: who maps their peers' memory. auto (default): cuda (arbench's own CUDA "
              "peer mappings, no NCCL needed) where it works, else NCCL's windows; cuda, nccl: that one only; all: "
              "each custom kernel on both, as cases named .../symm:cuda and .../symm:nccl");
  cli::number(cmd, "--pipelined-ops", cfg.pipelined_ops, "K", cli::ints(0, 100000),
              "ops back to back (one CUDA graph) per pipelined sample; 0 skips the pipelined regime (default: 20; "
              "host 4)");
  cli::off_flag(cmd, "--no-check", cfg.check, "skip the correctness checks (results are then unverified)");
  cmd.add_flag("--in-place", cfg.in_place, "allreduce output overwrites its input");
  cli::real_list(cmd, "--skew", cfg.skews_us, "US", cli::reals(0, 1e6),
                 "arrival skews to sweep, microseconds: rank r starts r/(N-1)*US late; a skewed case is named "
                 ".../skew:US and reports its latency after the last arrival (default 0; each below --timeout)");
  cmd.add_flag("--phases", cfg.phases,
               "record each case's phase timeline on a few extra ops after the timed ones: JSON 'phases', a "
               "breakdown per case on the console (docs/latency-breakdown.md)");
  cli::choice(cmd, "--beside", cfg.beside, {"compute", "fma", "memory"},
              "measure each case again beside a model's kernels: on each GPU a stream of short kernels (tens of us) "
              "at a lower priority than the case's, FMA-bound and memory-bound in turn (compute), or one kind "
              "(fma, memory); the host backend runs CPU threads (CPU timing). Records the case's latency under that "
              "load and the load's slowdown: JSON 'beside' (docs/method.md, \"Beside a model kernel\"); default: "
              "none, the cases run alone");
  cli::number(cmd, "--seed", cfg.seed, "N", cli::ints(0, std::numeric_limits<std::uint64_t>::max()),
              "seed of the oracle inputs (default 1)");
  cli::number(cmd, "--timeout", cfg.timeout_s, "S", cli::positive(kMaxTimeout),
              "bound in seconds on any wait for a peer (default 10)");
  cli::number(cmd, "--blocks", cfg.tuning.blocks, "N", cli::ints(1, algo::kMaxBlocks),
              "custom kernels: blocks per rank (default: the variant's policy; capped at what fits on the GPU)");
  cli::number(cmd, "--host-threads", cfg.tuning.host_threads, "T",
              cli::ints(0, std::min(algo::SymmLaunchPolicy::kThreads, algo::RingPolicy::kThreads)),
              "host backend: run every block of the CPU twins as this many threads, all blocks of all ranks at "
              "once, with real block barriers (block-faithful; slower). Default 0: one thread per rank runs its "
              "blocks in turn");
  cli::size(cmd, "--ring-chunk", cfg.tuning.ring_chunk, cli::byte_sizes(algo::kPackBytes, 64 << 20),
            "ring: chunk size in bytes (default: policy)");
  cli::size(cmd, "--peer-workspace", cfg.tuning.peer_workspace_bytes, cli::byte_sizes(16, 16ull << 30),
            "peer flashinfer-pcie-ipc: the largest all-reduce its workspace is sized for, as the engine sizes it for "
            "its largest batch (vLLM: largest CUDA-graph batch x hidden x dtype bytes; default 8M = 512 x 8192 x "
            "bf16); a larger case gets a workspace of its own size (docs/variants.md, \"Peers\")");
  cli::number(cmd, "--ring-channels", cfg.tuning.ring_channels, "N", cli::ints(1, algo::RingPolicy::kMaxChannels),
              "ring: independent rings (default: policy; capped at what fits on the GPU)");
  cli::int_list(cmd, "--ring-order", cfg.tuning.ring_order, "R", cli::ints(0, kMaxRanks - 1),
                "ring: rank order, e.g. 0,1,3,2 (default: follow the PCIe tree on the cuda backend, else rank order)");
  cli::input_file(cmd, "--links", cfg.links_file,
                  "link bandwidths from `arbench topo --out FILE.json`, the denominator of the efficiency counter "
                  "(default: a short copy-engine probe at start on the cuda backend)",
                  [](const std::string& path) {
                    topo::read_links_file(path);
                    (void)sol::read_pattern_rates(path);  // its "patterns" too, before any work
                  });
  cli::off_flag(cmd, "--no-link-probe", cfg.link_probe,
                "no link probe at start (no efficiency counter without --links)");
  cli::off_flag(cmd, "--no-sol", cfg.sol,
                "no speed-of-light floor per case, and no pattern probe at start (the floor's rates come from --links "
                "FILE's patterns, else that probe; CPU threads on the host backend)");
  cli::int_list(cmd, "--nccl-channels", cfg.nccl_channels, "N", cli::ints(1, tuner::kMaxChannels),
                "forced NCCL configurations also on N channels: nccl[<algo>/<proto>/ch:N] (default: none)");
  cli::library_files(cmd, "--nccl-lib", cfg.nccl_libs,
                     "[NAME=]PATH of another NCCL (2.14 or newer) to measure beside the default one (ARBENCH_NCCL_LIBRARY, "
                     "else libnccl.so.2), each with its own communicators; repeat it for more. Its variants are "
                     "nccl@<NAME> and, where the library has symmetric memory, nccl-symm@<NAME>, NAME defaulting to the version it reports (nccl@2.29.2); "
                     "a file that is not such a library is refused before any work");
  cli::input_file(cmd, "--tuner-table", cfg.tuner_table,
                  "the table nccl[tuned] applies, from `arbench settings` (default: none)", check_tuner_table_file);
  cli::text(cmd, "--islands", cfg.islands, "SPEC",
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

// The long names of the options typed on `cmd`'s command line.
std::set<std::string> given_options(const CLI::App& cmd) {
  std::set<std::string> given;
  for (const CLI::Option* o : cmd.get_options())
    if (o->count() > 0 && !o->get_lnames().empty()) given.insert("--" + o->get_lnames().front());
  return given;
}

}  // namespace

// --benchmark_filter selects cases for both subcommands (sweep/sweep.hpp filter_sweep).
void add_run_commands(CLI::App& app, int& exit_code, const std::string& command_line, World& world,
                      const std::string& gbench_out) {
  // Parsed values, shared by both subcommands (only one runs per invocation) and kept alive
  // by the callbacks that read them.
  struct Parsed {
    RunConfig cfg;
    std::vector<std::string> dtypes, families;
    std::string cache = "hot";
  };
  auto parsed = std::make_shared<Parsed>();
  parsed->cfg.command_line = command_line;
  parsed->cfg.gbench_out = gbench_out;
  RunConfig& cfg = parsed->cfg;
  auto& dtypes = parsed->dtypes;
  auto& families = parsed->families;

  // Both subcommands sweep the same way; `list` only prints the cases.
  const auto sweep_on = [&exit_code, &world, parsed](CLI::App* cmd, bool list_only) {
    cmd->callback([&exit_code, &world, parsed, cmd, list_only] {
      parsed->cfg.given = given_options(*cmd);
      to_config(parsed->cfg, parsed->dtypes, parsed->families, parsed->cache);
      parsed->cfg.filter = benchmark::GetBenchmarkFilter();
      exit_code = parsed->cfg.dry_run ? run_dry(parsed->cfg, std::cout) : run_sweep(parsed->cfg, list_only, world);
    });
  };

  auto* run = app.add_subcommand("run", "run the sweep (the default subcommand): console table, JSON, CSV");
  add_sweep_options(*run, cfg, dtypes, families, parsed->cache);
  cli::output_file(*run, "--out", cfg.out_json, "write the results JSON here (atomically)");
  cli::output_file(*run, "--csv", cfg.out_csv, "write one CSV line per case here (atomically)");
  cli::input_file(*run, "--doctor", cfg.doctor_file,
                  "a report of `arbench doctor --out FILE.json` on this machine: its findings (pull beats push) go into "
                  "the results, where tune and settings read them (default: none)",
                  [](const std::string& path) { doctor::read_doctor_report(path); });
  auto* quiet = run->add_flag("-q,--quiet", cfg.quiet,
                              "no console table; errors, the footer and (on a terminal) progress only (not with --wide)");
  run->add_flag("--wide", cfg.wide,
                "Google Benchmark's console table with every counter instead of arbench's 120-column one "
                "(also --benchmark_format=console)")
      ->excludes(quiet);
  run->add_flag("--dry-run", cfg.dry_run,
                "run nothing: print every case's speed-of-light floor on --links FILE's rates (a box's `arbench topo "
                "--out` file, or a published one under results/reference/); needs no GPU (docs/speed-of-light.md)");
  run->footer(cli::gbench_flags_help(false));
  sweep_on(run, false);

  auto* list = app.add_subcommand("list", "print the cases a run would execute, one a line, and why any is skipped");
  add_sweep_options(*list, cfg, dtypes, families, parsed->cache);
  list->footer(cli::gbench_flags_help(true));
  sweep_on(list, true);
}

}  // namespace arbench
