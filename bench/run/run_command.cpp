#include "run/run_command.hpp"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/cuda_fabric.hpp"
#include "kernels/fabric/nccl_api.hpp"
#include "results/console_table.hpp"
#include "results/fusion_summary.hpp"
#include "results/provenance.hpp"
#include "results/report.hpp"
#include "results/tee_reporter.hpp"
#include "run/fabric_factory.hpp"
#include "run/harness.hpp"
#include "run/memory_check.hpp"
#include "run/progress.hpp"
#include "run/run_console.hpp"
#include "run/run_links.hpp"
#include "run/run_outputs.hpp"
#include "run/run_stop.hpp"
#include "run/sweep.hpp"

namespace arbench {
namespace {

struct ResolvedBackend {
  Backend backend;
  int gpus_present;
};

ResolvedBackend resolve_backend(const std::string& asked) {
  if (asked == "host") return {Backend::host, cuda_device_count()};
  if (asked == "single-gpu") return {Backend::single_gpu, cuda_device_count_or_throw()};
  if (asked == "cuda") {
    const int n = cuda_device_count_or_throw();
    (void)NcclApi::get();  // exit 3 with what to install when NCCL is missing or too old
    return {Backend::cuda, n};
  }
  const int n = cuda_device_count();
  if (n > 0) {
    if (NcclApi::available()) return {Backend::cuda, n};
    std::cerr << "arbench: " << n << " GPU(s) found but NCCL is unavailable (" << NcclApi::version_or_reason()
              << "); using --backend single-gpu (custom kernels on GPU 0 only)\n";
    return {Backend::single_gpu, n};
  }
  std::cerr << "arbench: no CUDA device found; using --backend host (CPU threads run the host twins; "
               "timings are CPU timings)\n";
  return {Backend::host, 0};
}

// The counters of one case in Google Benchmark's report (the JSON's `benchmarks` entries and
// --wide's table).
void set_counters(benchmark::State& state, const CaseResult& r) {
  auto& k = state.counters;
  k["busbw_GBps"] = r.busbw_gbps;
  k["algbw_GBps"] = r.algbw_gbps;
  k["p10_us"] = r.latency_us.p10;
  k["p50_us"] = r.latency_us.median;
  k["p90_us"] = r.latency_us.p90;
  k["p99_us"] = r.latency_us.p99;
  k["pipelined_us"] = r.pipelined_us;
  k["samples"] = double(r.samples_us.size());
  k["wrong_elements"] = double(r.wrong_elements);
  if (r.c.family == Family::allreduce_rmsnorm) k["max_ulp_error"] = r.max_ulp_error;
  for (const auto& [name, v] : r.extra) k[name] = v;
}

// The display reporter: arbench's table, Google Benchmark's (--wide), or none (-q).
std::unique_ptr<benchmark::BenchmarkReporter> display_reporter(const RunConfig& cfg,
                                                               const std::vector<Case>& cases) {
  if (cfg.quiet) return nullptr;
  if (cfg.wide)
    return std::make_unique<WideConsoleReporter>(isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                                       : benchmark::ConsoleReporter::OO_Tabular);
  std::vector<std::string> names;
  for (const auto& c : cases) names.push_back(c.name());
  return std::make_unique<ConsoleTable>(names, cfg.check);
}

}  // namespace

int run_sweep(RunConfig cfg, bool list_only) {
  const ResolvedBackend rb = resolve_backend(cfg.backend);
  const Backend b = rb.backend;
  resolve_defaults(cfg, b, rb.gpus_present);
  if (!cfg.out_json.empty()) check_writable(cfg.out_json, "--out");
  if (!cfg.out_csv.empty()) check_writable(cfg.out_csv, "--csv");

  const Registry& reg = Registry::builtin();
  Sweep sweep = expand_sweep(cfg, reg, b);
  SweepCounts counts;
  counts.filtered = filter_sweep(sweep, cfg.filter);
  const RunLinks links(cfg, b);
  cfg.tuning.topology_ring_orders = links.ring_orders(cfg.gpus);
  const double timeout = cfg.timeout_s;
  FabricCache fabrics([timeout](Backend bk, int world, const FabricEnv& env) {
    return make_fabric(bk, world, env, timeout);
  });
  Harness harness(cfg, b, reg, fabrics);

  std::vector<Case> runnable;
  std::vector<Skipped> skipped;
  for (auto& s : sweep.skipped) skipped.push_back({s.c, s.reason});
  for (const auto& c : sweep.cases) {
    Support s = harness.plan(c);
    if (s.ok)
      runnable.push_back(c);
    else
      skipped.push_back({c, s.reason});
  }
  counts.cases = runnable.size();
  counts.skipped = skipped.size();

  if (list_only) {
    std::cout << "# backend " << backend_name(b) << ": " << runnable.size() << " cases, " << skipped.size()
              << " skipped\n";
    for (const auto& c : runnable) std::cout << c.name() << "\n";
    for (const auto& s : skipped) std::cout << s.c.name() << "  # skipped: " << s.reason << "\n";
    print_catalogue(std::cout, reg, b);
    return kExitOk;
  }
  if (runnable.empty()) {
    std::string why = skipped.empty() ? std::string("no cases") : skipped.front().reason;
    throw UsageError("nothing to run: all " + std::to_string(skipped.size()) + " cases of the sweep are skipped on the " +
                     std::string(backend_name(b)) + " backend (e.g. " + why + "); `arbench list` shows why");
  }
  if (b == Backend::host)  // every rank's buffers live in this process: refuse what cannot fit
    check_memory_fits(runnable, [&](const Case& c) { return harness.memory_bytes(c); },
                      available_host_memory().value_or(std::numeric_limits<std::size_t>::max()));

  RunStop stop;  // Ctrl-C from here on: stop after the current case
  if (!cfg.quiet) print_banner(std::cout, cfg, b, fabrics, links.source(), counts);

  int columns = 80;
  const bool terminal = stderr_is_terminal(columns);
  Progress progress(std::cerr, terminal, runnable.size(), columns);
  std::vector<CaseResult> results;
  results.reserve(runnable.size());
  for (const auto& c : runnable) {
    benchmark::RegisterBenchmark(c.name().c_str(), [&, c](benchmark::State& state) {
      if (stop.requested()) {
        state.SkipWithError(kNotRunMessage);
        return;
      }
      progress.begin(c.name());
      CaseResult r;
      for (auto _ : state) {
        r = harness.run(c);
        links.annotate(r);
        state.SetIterationTime(r.ok ? r.latency_us.median * 1e-6 : 0.0);
      }
      progress.end();
      if (!r.ok) state.SkipWithError(r.reason.c_str());
      add_fusion_counters(r, results);  // from the cases run so far (unfused variants run first)
      set_counters(state, r);
      results.push_back(std::move(r));
    })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }

  std::ostringstream json_text, json_err;
  benchmark::JSONReporter json;
  json.SetOutputStream(&json_text);
  json.SetErrorStream(&json_err);
  const auto display = display_reporter(cfg, runnable);
  std::vector<benchmark::BenchmarkReporter*> to = {&json};
  if (display) to.push_back(display.get());
  TeeReporter tee(to);
  benchmark::RunSpecifiedBenchmarks(&tee, ".");  // the sweep is already filtered (filter_sweep)
  benchmark::ClearRegisteredBenchmarks();

  add_fusion_counters(results);  // again with every case, so the JSON does not depend on the order
  if (!cfg.quiet) std::cout << fusion_summary_table(results);
  print_footer(std::cout, results, skipped, stop.reason(), runnable.size());

  Provenance prov = host_provenance(cfg.command_line, std::string(backend_name(b)));
  int max_world = 0;
  for (int g : cfg.gpus) max_world = std::max(max_world, g);
  add_gpu_provenance(prov, b, b == Backend::single_gpu ? 1 : max_world);
  FinishedRun run{std::string(backend_name(b)), to_json(prov), config_to_json(cfg), json_text.str(), std::move(results),
                  std::move(skipped), std::nullopt};
  run.provenance["topology"] = links.provenance(max_world);
  if (stop.requested()) {
    run.incomplete = Incomplete{stop.reason(), runnable.size(), {}};
    for (std::size_t i = run.results.size(); i < runnable.size(); ++i)
      run.incomplete->not_run.push_back(runnable[i].name());
  }
  write_run_outputs(run, cfg.out_json, cfg.out_csv, std::cout);
  if (stop.requested()) return stop.exit_code();
  for (const auto& r : run.results)
    if (!r.ok) return kExitFailure;
  return kExitOk;
}

}  // namespace arbench
