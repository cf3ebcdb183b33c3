#include "run/run_command.hpp"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "arbench/core/errors.hpp"
#include "results/fusion_summary.hpp"
#include "results/phase_report.hpp"
#include "run/harness.hpp"
#include "results/report.hpp"
#include "run/sizes.hpp"
#include "run/sweep.hpp"
#include "run/fabric_factory.hpp"
#include "kernels/fabric/cuda_fabric.hpp"
#include "kernels/fabric/nccl_api.hpp"
#include "kernels/fabric/single_gpu_env.hpp"
#include "run/run_links.hpp"
#include "run/multi_process.hpp"
#include "results/tee_reporter.hpp"

namespace arbench {
namespace {

struct ResolvedBackend {
  Backend backend;
  int gpus_present;
};

ResolvedBackend resolve_backend(const std::string& asked, bool lead) {
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
    if (lead)
      std::cerr << "arbench: " << n << " GPU(s) found but NCCL is unavailable (" << NcclApi::version_or_reason()
              << "); using --backend single-gpu (custom kernels on GPU 0 only)\n";
    return {Backend::single_gpu, n};
  }
  if (lead)
    std::cerr << "arbench: no CUDA device found; using --backend host (CPU threads run the host twins; "
                 "timings are CPU timings)\n";
  return {Backend::host, 0};
}

std::string join_ints(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

void print_banner(const RunConfig& cfg, Backend b, FabricCache& fabrics, const std::string& links_source,
                  std::size_t n_cases, std::size_t n_skipped, const World& world) {
  std::cout << "arbench " << ARBENCH_VERSION_STRING << " | backend " << backend_name(b)
            << (b == Backend::host ? " (CPU threads; timings are CPU timings, not GPU)" : "") << "\n";
  if (world.multi_process())
    std::cout << "  launch: " << launch_text(launch_info(world)) << " by " << world.layout().launcher
              << ", one rank per process\n";
  for (const std::string& f : fabrics.created()) std::cout << "  fabric: " << f << "\n";
  if (b == Backend::cuda) std::cout << "  links: " << links_source << "\n";
  std::string dts;
  for (DType t : cfg.dtypes) dts += (dts.empty() ? "" : ",") + std::string(dtype_name(t));
  std::cout << "  sweep: gpus " << join_ints(cfg.gpus) << " | sizes " << format_size(*cfg.min_bytes) << ".."
            << format_size(*cfg.max_bytes) << " x" << cfg.step_factor << " | dtype " << dts << " | " << n_cases
            << " cases, " << n_skipped << " skipped\n"
            << "  per case: " << *cfg.warmup << " warm-up ops, " << *cfg.samples << " isolated samples, "
            << *cfg.pipelined_ops << " pipelined ops x 5 | check " << (cfg.check ? "on" : "OFF") << "\n"
            << "  time = median isolated latency (max over ranks); counters: busbw/algbw GB/s, p10..p99 us, "
               "pipelined us/op\n"
            << std::flush;
}

void print_footer(const std::vector<CaseResult>& results, const std::vector<Skipped>& skipped) {
  int failed = 0;
  for (const auto& r : results) failed += r.ok ? 0 : 1;
  std::cout << "\narbench: " << results.size() << " cases run, " << (results.size() - failed) << " ok, " << failed
            << " failed, " << skipped.size() << " skipped\n";
  for (const auto& r : results)
    if (!r.ok) std::cout << "  FAILED " << r.c.name() << ": " << r.reason << "\n";
  std::map<std::string, int> reasons;
  for (const auto& s : skipped) ++reasons[s.c.variant + ": " + s.reason];
  for (const auto& [why, n] : reasons) std::cout << "  skipped " << n << " x " << why << "\n";
}

// The variants --variants can name, after the cases: configurations (`nccl[ring/ll]`) are in
// no default sweep, so this is where a user finds them. '#' lines, like the header, so that
// `grep -v '^#'` keeps the case names only.
void print_catalogue(const Registry& reg, Backend b) {
  std::cout << "# variants (--variants takes names or globs; [configurations] run only when named in full):\n";
  for (const auto& v : reg.catalogue(b)) {
    std::cout << "#   " << std::left << std::setw(18) << family_name(v.family) << std::setw(20) << v.name
              << v.summary;
    if (!v.unavailable.empty()) std::cout << "  [not on " << backend_name(b) << ": " << v.unavailable << "]";
    std::cout << "\n";
  }
}

// --out and --csv from the cases completed so far (the whole sweep, or up to a stop). Collective:
// the provenance gathers every process's GPU; process 0 writes.
void write_result_files(const RunConfig& cfg, Backend b, const RunLinks& links, const std::string& gbench_json,
                        const std::vector<CaseResult>& results, const std::vector<Skipped>& skipped,
                        World& world) {
  Provenance prov = host_provenance(cfg.command_line, std::string(backend_name(b)));
  prov.launch = launch_info(world);
  int max_world = 0;
  for (int g : cfg.gpus) max_world = std::max(max_world, g);
  add_gpu_provenance(prov, b, b == Backend::single_gpu ? 1 : max_world, world);
  if (world.rank() != 0) return;
  if (!cfg.out_json.empty()) {
    auto arb = arbench_object(prov, config_to_json(cfg), results, skipped);
    arb["provenance"]["topology"] = links.provenance(max_world);
    auto doc = merge_result_json(gbench_json, arb);
    write_file_atomically(cfg.out_json, doc.dump(2) + "\n");
    std::cout << "arbench: wrote " << cfg.out_json << "\n";
  }
  if (!cfg.out_csv.empty()) {
    write_file_atomically(cfg.out_csv, results_csv(results, std::string(backend_name(b))));
    std::cout << "arbench: wrote " << cfg.out_csv << "\n";
  }
}

// Settings that must be in place before the process creates a CUDA context, and the bound that
// a display watchdog imposes.
void prepare_gpu_process(RunConfig& cfg, Backend b, int gpus_present) {
  if (b == Backend::single_gpu) prepare_single_gpu_env(kMaxRanks);  // single_gpu_env.hpp: why
  if (b == Backend::host) return;
  const TimeoutCap cap = cap_timeout_for_watchdog(cfg.timeout_s, gpus_with_kernel_watchdog(gpus_present));
  if (cap.warning.empty()) return;
  std::cerr << "arbench: " << cap.warning << "\n";
  cfg.timeout_s = cap.timeout_s;
}

}  // namespace

int run_sweep(RunConfig cfg, bool list_only, World& world, const Registry& reg) {
  // World rank 0 alone prints and writes. Every process sets the run up the same way, and they
  // agree on any error before the first case (so none waits for a peer that gave up).
  const bool lead = world.rank() == 0;
  Backend b = Backend::host;
  std::optional<Sweep> sweep;
  std::optional<RunLinks> links;
  agree_on_errors(world, [&] {
    // single-gpu asked by name: before the CUDA runtime's first call (device count).
    if (cfg.backend == "single-gpu") prepare_single_gpu_env(kMaxRanks);
    const ResolvedBackend rb = resolve_backend(cfg.backend, lead);
    b = rb.backend;
    resolve_multi_process(cfg, b, world);
    resolve_defaults(cfg, b, world.multi_process() ? world.size() : rb.gpus_present);
    prepare_gpu_process(cfg, b, rb.gpus_present);
    cfg.test_absent_rank = parse_absent_rank(std::getenv("ARBENCH_TEST_ABSENT_RANK"));
    if (cfg.test_absent_rank >= 0 && lead)
      std::cerr << "arbench: test switch ARBENCH_TEST_ABSENT_RANK=" << cfg.test_absent_rank
                << ": that rank never launches its ops (its peers must time out)\n";
    if (lead && !cfg.out_json.empty()) check_writable(cfg.out_json, "--out");
    if (lead && !cfg.out_csv.empty()) check_writable(cfg.out_csv, "--csv");
    sweep = expand_sweep(cfg, reg, b);
    links.emplace(cfg, b, world);
    cfg.tuning.topology_ring_orders = links->ring_orders(cfg.gpus);
    cfg.all_nvlink = links->all_nvlink(cfg.gpus);
  }, "setting up the run");
  // Longer than any step between two collectives (each wait of an op is bounded by --timeout).
  world.set_wait_bound_s(4 * cfg.timeout_s + 10);
  const int stall = parse_stall_process(std::getenv("ARBENCH_TEST_STALL_PROCESS"), world.size());
  if (stall >= 0)
    std::cerr << "arbench: test switch ARBENCH_TEST_STALL_PROCESS=" << stall << ": that process stops answering\n";
  const double timeout = cfg.timeout_s;
  FabricCache fabrics([timeout, &world](Backend bk, int w, const FabricEnv& env) {
    std::unique_ptr<Fabric> f;
    agree_on_errors(world, [&] { f = make_fabric(bk, w, env, timeout, world); }, "creating a fabric");
    return f;
  });
  Harness harness(cfg, b, reg, fabrics);

  std::vector<Case> runnable;
  std::vector<Skipped> skipped;
  for (auto& s : sweep->skipped) skipped.push_back({s.c, s.reason});
  std::vector<std::string> why_not;  // per case: empty when it runs here
  for (const auto& c : sweep->cases) {
    Support s = harness.plan(c);
    why_not.push_back(s.ok ? std::string() : s.reason);
  }
  why_not = agree_on_plan(world, why_not);  // a case runs when every process can run it
  for (std::size_t i = 0; i < sweep->cases.size(); ++i)
    if (why_not[i].empty())
      runnable.push_back(sweep->cases[i]);
    else
      skipped.push_back({sweep->cases[i], why_not[i]});
  if (!lead) cfg.quiet = true;

  if (list_only) {
    if (!lead) return kExitOk;
    std::cout << "# backend " << backend_name(b) << ": " << runnable.size() << " cases, " << skipped.size()
              << " skipped\n";
    for (const auto& c : runnable) std::cout << c.name() << "\n";
    for (const auto& s : skipped) std::cout << s.c.name() << "  # skipped: " << s.reason << "\n";
    print_catalogue(reg, b);
    return kExitOk;
  }
  if (runnable.empty()) {
    std::string why = skipped.empty() ? std::string("no cases") : skipped.front().reason;
    throw UsageError("nothing to run: all " + std::to_string(skipped.size()) + " cases of the sweep are skipped on the " +
                     std::string(backend_name(b)) + " backend (e.g. " + why + "); `arbench list` shows why");
  }

  if (!cfg.quiet) print_banner(cfg, b, fabrics, links->source(), runnable.size(), skipped.size(), world);

  std::vector<CaseResult> results;
  results.reserve(runnable.size());
  std::vector<Skipped> not_run;  // after a case left the devices unusable
  for (const auto& c : runnable) {
    benchmark::RegisterBenchmark(c.name().c_str(), [&, c](benchmark::State& state) {
      if (stall == world.rank()) std::this_thread::sleep_for(std::chrono::hours(1));
      if (!harness.stop_reason().empty()) {
        not_run.push_back({c, "not run: the run stopped after " + harness.stop_reason()});
        state.SkipWithError(not_run.back().reason.c_str());
        return;
      }
      CaseResult r;
      for (auto _ : state) {
        r = harness.run(c);
        links->annotate(r);
        state.SetIterationTime(r.ok ? r.latency_us.median * 1e-6 : 0.0);
      }
      if (!r.ok) state.SkipWithError(r.reason.c_str());
      add_fusion_counters(r, results);  // from the cases run so far (unfused variants run first)
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
      if (c.family == Family::allreduce_rmsnorm) k["max_ulp_error"] = r.max_ulp_error;
      for (const auto& [name, v] : r.extra) k[name] = v;
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
  // Under mpirun a process's stdout is a pseudo-terminal of mpirun's even when mpirun's own
  // output goes to a file: no colours there.
  const bool colour = isatty(STDOUT_FILENO) && !world.multi_process();
  benchmark::ConsoleReporter console(colour ? benchmark::ConsoleReporter::OO_ColorTabular
                                            : benchmark::ConsoleReporter::OO_Tabular);
  std::vector<benchmark::BenchmarkReporter*> to = {&json};
  if (!cfg.quiet) to.push_back(&console);
  TeeReporter tee(to);
  benchmark::RunSpecifiedBenchmarks(&tee);
  benchmark::ClearRegisteredBenchmarks();

  add_fusion_counters(results);  // again with every case, so the JSON does not depend on the order
  if (!cfg.quiet) std::cout << fusion_summary_table(results);
  if (const std::string phases = phase_breakdown_table(results); !cfg.quiet && !phases.empty())
    std::cout << "\n" << phases;
  skipped.insert(skipped.end(), not_run.begin(), not_run.end());
  if (lead) print_footer(results, skipped);
  agree_on_errors(world, [&] { write_result_files(cfg, b, *links, json_text.str(), results, skipped, world); },
                  "writing the results");
  if (!harness.stop_reason().empty()) {
    if (lead)
      std::cout << "arbench: stopped after " << harness.stop_reason() << "; " << not_run.size()
              << " cases not run (restart the process to get a fresh CUDA context)\n";
    return kExitFailure;
  }
  for (const auto& r : results)
    if (!r.ok) return kExitFailure;
  return kExitOk;
}

}  // namespace arbench
