#include "run/run_command.hpp"

#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "arbench/algo/island/island_map.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/last_words.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_libraries.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/fabric/cuda/module_loading.hpp"
#include "kernels/fabric/cuda/single_gpu_env.hpp"
#include "measure/nccl/tuner_plugin.hpp"
#include "run/process/nccl_tuner_env.hpp"
#include "console/console_table.hpp"
#include "results/fusion_summary.hpp"
#include "results/phase_report.hpp"
#include "results/machine_stack.hpp"
#include "results/provenance.hpp"
#include "results/report.hpp"
#include "console/tee_reporter.hpp"
#include "measure/fabric_factory.hpp"
#include "measure/gpu/beside_gpu.hpp"
#include "measure/harness.hpp"
#include "sweep/memory_check.hpp"
#include "run/process/env_child.hpp"
#include "run/process/multi_process.hpp"
#include "run/progress/progress.hpp"
#include "run/run_console.hpp"
#include "run/symm_mem_text.hpp"
#include "run/run_device_state.hpp"
#include "run/nccl_case_labels.hpp"
#include "text/wrap.hpp"
#include "doctor/checks.hpp"
#include "doctor/report.hpp"
#include "run/run_links.hpp"
#include "run/run_sol.hpp"
#include "run/run_outputs.hpp"
#include "run/run_stop.hpp"
#include "io/output_paths.hpp"
#include "sweep/option_scope.hpp"
#include "sweep/run_config.hpp"
#include "measure/sampling.hpp"
#include "sweep/sweep.hpp"

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
  if (r.median_ci_us.known) k["noise_pct"] = r.median_ci_us.noise * 100;
  k["wrong_elements"] = double(r.wrong_elements);
  if (r.c.family == Family::allreduce_rmsnorm) k["max_ulp_error"] = r.max_ulp_error;
  if (r.max_abs_err) k["max_abs_err"] = *r.max_abs_err;  // lossy variants (docs/method.md, "Accuracy")
  if (r.rms_rel_err) k["rms_rel_err"] = *r.rms_rel_err;
  if (r.sol) k["sol_us"] = r.sol->sol_us;  // the speed-of-light floor (bench/sol/)
  if (const auto pct = pct_of_sol(r)) k["pct_of_sol"] = *pct;
  if (r.sms.known()) k["sms"] = r.sms.ctas;  // the console's SMs column (docs/output.md, "sms")
  for (const auto& [name, v] : r.extra) k[name] = v;
}

// Whether `variant` is lossy (FP8 on the wire): its error figures get a console column. A variant
// the registry cannot make here is not (the harness reports why it cannot run).
bool variant_is_lossy(const Registry& reg, const std::string& variant, Backend b) {
  try {
    return reg.make(variant, b)->lossy();
  } catch (const std::exception&) {
    return false;
  }
}

// The display reporter: arbench's table, Google Benchmark's (--wide), or none (-q). Under
// mpirun a process's stdout is a pseudo-terminal of mpirun's even when mpirun's own output goes
// to a file: no colours there.
std::unique_ptr<benchmark::BenchmarkReporter> display_reporter(const RunConfig& cfg, const std::vector<Case>& cases,
                                                               bool multi_process, const Registry& reg, Backend b,
                                                               bool floors) {
  if (cfg.quiet) return nullptr;
  if (cfg.wide) {
    const bool colour = isatty(STDOUT_FILENO) && !multi_process;
    return std::make_unique<WideConsoleReporter>(colour ? benchmark::ConsoleReporter::OO_ColorTabular
                                                        : benchmark::ConsoleReporter::OO_Tabular);
  }
  std::vector<std::string> names;
  std::set<std::string> lossy;  // cases of lossy variants: the table's error column
  std::map<std::string, bool> is_lossy;
  for (const auto& c : cases) {
    names.push_back(c.name());
    auto it = is_lossy.find(c.variant);
    if (it == is_lossy.end()) it = is_lossy.emplace(c.variant, variant_is_lossy(reg, c.variant, b)).first;
    if (it->second) lossy.insert(c.name());
  }
  return std::make_unique<ConsoleTable>(names, cfg.check, std::move(lossy), floors);
}

// The islands every world size ran its island variants on, and where they came from.
nlohmann::json islands_provenance(const RunConfig& cfg, const RunLinks& links) {
  nlohmann::json by_world = nlohmann::json::object();
  for (int w : cfg.gpus) {
    const auto it = cfg.tuning.islands.find(w);
    by_world[std::to_string(w)] = it == cfg.tuning.islands.end() ? nlohmann::json() : nlohmann::json(algo::islands_text(it->second));
  }
  nlohmann::json notes = nlohmann::json::object();  // how the derivation split groups (bench/islands/derive.hpp)
  if (cfg.islands.empty())
    for (const auto& [w, n] : links.island_notes()) notes[std::to_string(w)] = n;
  return {{"source", cfg.islands_source}, {"by_world", by_world}, {"notes", notes}};
}

// The run's provenance and configuration as the result files hold them. Collective (the
// provenance gathers every process's GPU), once before the first case, so that the files can be
// written by process 0 alone at any moment (ResultCheckpoint, a second Ctrl-C) and at the end.
FinishedRun result_header(const RunConfig& cfg, Backend b, const SweepScope& scope, const RunLinks& links,
                          const RunDeviceState& devices, World& world) {
  FinishedRun run;
  run.backend = std::string(backend_name(b));
  Provenance prov = host_provenance(cfg.command_line, run.backend);
  prov.launch = launch_info(world);
  int max_world = 0;
  for (int g : cfg.gpus) max_world = std::max(max_world, g);
  add_gpu_provenance(prov, b, b == Backend::single_gpu ? 1 : max_world, world);
  run.provenance = to_json(prov);
  run.provenance["topology"] = links.provenance(max_world);
  run.provenance["device_state"] = devices.provenance();
  // Per world size, whether every GPU pair is NVLink-connected: `arbench settings` recommends LL128
  // only where it is (measure/nccl/nccl_protocol_policy.hpp says why).
  if (b == Backend::cuda) {
    nlohmann::json nvlink = nlohmann::json::object();
    for (int w : cfg.gpus) nvlink[std::to_string(w)] = cfg.all_nvlink.count(w) > 0 && cfg.all_nvlink.at(w);
    run.provenance["nvlink_all_pairs"] = nvlink;
  }
  run.provenance["islands"] = islands_provenance(cfg, links);
  if (!cfg.doctor_file.empty())
    run.provenance["box_findings"] = doctor::box_findings(doctor::read_doctor_report(cfg.doctor_file), cfg.doctor_file);
  add_machine_and_stack(run.provenance);  // after the topology: the machine includes the PCIe relations
  run.config = config_to_json(cfg);
  drop_unused_config(run.config, b, scope);  // what shaped the sweep, never a value it did not use
  run.config["sweep_key"] = sweep_key(cfg);
  return run;
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

// --nccl-lib: the libraries measured beside the default one, loaded and checked before any work
// (exit 2 or 3: kernels/fabric/nccl/nccl_libraries.hpp), their variants added to `reg`.
std::vector<const NcclLibrary*> add_nccl_libraries(const RunConfig& cfg, Registry& reg) {
  std::vector<NcclLibrarySpec> specs;
  for (const std::string& typed : cfg.nccl_libs) {
    std::string why;
    const std::optional<NcclLibrarySpec> s = parse_nccl_library_spec(typed, &why);
    if (!s) throw UsageError("--nccl-lib " + typed + ": " + why);
    specs.push_back(*s);
  }
  std::vector<const NcclLibrary*> libs = load_nccl_libraries(specs);
  for (const NcclLibrary* lib : libs)
    for (VariantEntry& e : nccl_library_entries(lib->api)) reg.add(std::move(e));
  return libs;
}

// One line per NCCL library of the run, the default first (banner, `list`).
std::vector<std::string> nccl_library_lines(const std::vector<const NcclLibrary*>& libs) {
  if (libs.empty()) return {};
  std::vector<std::string> lines;
  lines.push_back("nccl: " + (NcclApi::available() ? "NCCL " + NcclApi::version_or_reason() + " " +
                                                         (NcclApi::get().file.empty() ? NcclApi::get().path
                                                                                      : NcclApi::get().file)
                                                   : "unavailable (" + NcclApi::version_or_reason() + ")") +
                  " (the default: ARBENCH_NCCL_LIBRARY, else libnccl.so.2)");
  for (const NcclLibrary* lib : libs) {
    lines.push_back(with_library("nccl", lib->api.label) + ": NCCL " + nccl_version_text(lib->api.version) + " " +
                    lib->api.path + (lib->named ? "" : " (labelled by its version)"));
    for (const std::string& limit : nccl_library_limits(*lib)) lines.push_back("  " + limit);
  }
  return lines;
}

}  // namespace

int run_sweep(RunConfig cfg, bool list_only, World& world, const Registry& registry) {
  Registry reg = registry;  // and the variants of the libraries of --nccl-lib
  // World rank 0 alone prints and writes. Every process sets the run up the same way, and they
  // agree on any error before the first case (so none waits for a peer that gave up).
  const bool lead = world.rank() == 0;
  Backend b = Backend::host;
  std::optional<Sweep> sweep;
  std::optional<RunLinks> links;
  SweepScope scope;
  SweepCounts counts;
  // A child started for the cases of one environment (env_child.hpp): it runs those cases only
  // and writes them where its parent reads them.
  std::optional<ChildRole> role;
  std::optional<NcclCaseLabels> nccl_labels;
  std::vector<const NcclLibrary*> nccl_libs;
  agree_on_errors(world, [&] {
    role = child_role();
    // Before the first NCCL call: a child of a forced configuration on N channels has NCCL log
    // the communicators' channel counts (measure/nccl/nccl_init_log.hpp says why).
    nccl_labels.emplace(role ? asked_nccl_channels() : 0, role ? role->out + ".nccl-init.log" : std::string());
    if (role) {
      cfg.out_json = role->out;
      cfg.out_csv.clear();
      cfg.quiet = true;
    }
    // Before the CUDA runtime's first call (device count): every kernel loaded with the context
    // (module_loading.hpp), and, for single-gpu asked by name, a hardware queue per rank stream.
    if (const std::string note = prepare_module_loading(); !note.empty() && lead && cfg.backend != "host")
      std::cerr << "arbench: " << note << "\n";
    nccl_libs = add_nccl_libraries(cfg, reg);  // a path that is not an NCCL library: exit 2, before any work
    // A GPU backend asked by name: --host-threads cannot apply, said before the device is probed
    // (was: "no usable CUDA device", exit 3, on a machine without one).
    if (cfg.backend == "cuda" || cfg.backend == "single-gpu")
      if (const std::string why = host_threads_problem(cfg.tuning.host_threads,
                                                       cfg.backend == "cuda" ? Backend::cuda : Backend::single_gpu,
                                                       cfg.families);
          !why.empty())
        throw UsageError(why);
    if (cfg.backend == "single-gpu") prepare_single_gpu_env(kMaxRanks);
    const ResolvedBackend rb = resolve_backend(cfg.backend, lead);
    b = rb.backend;
    resolve_multi_process(cfg, b, world);
    if (world.multi_process() && !cfg.beside.empty())
      throw UsageError("--beside runs in one process (its background load and the window it counts over are the "
                       "process's own); run it without the launcher, on the cuda backend's one process");
    resolve_defaults(cfg, b, world.multi_process() ? world.size() : rb.gpus_present);
    prepare_gpu_process(cfg, b, rb.gpus_present);
    cfg.test_absent_rank = parse_absent_rank(std::getenv("ARBENCH_TEST_ABSENT_RANK"));
    if (cfg.test_absent_rank >= 0 && lead)
      std::cerr << "arbench: test switch ARBENCH_TEST_ABSENT_RANK=" << cfg.test_absent_rank
                << ": that rank never launches its ops (its peers must time out)\n";
    for (const char* k : {"NCCL_ALGO", "NCCL_PROTO"})  // NCCL reads them too (measure/nccl/nccl_protocol_policy.hpp)
      if (const char* v = std::getenv(k)) cfg.inherited_nccl_env[k] = v;
    cfg.test_broken_p2p = parse_broken_pair(std::getenv("ARBENCH_TEST_BROKEN_P2P"));
    if (cfg.test_broken_p2p.a >= 0 && lead)
      std::cerr << "arbench: test switch ARBENCH_TEST_BROKEN_P2P=" << cfg.test_broken_p2p.a << ","
                << cfg.test_broken_p2p.b << ": that pair's peer-to-peer data goes elsewhere (the peer check must "
                << "find it)\n";
    if (lead && !list_only)
      check_output_paths({{"--out", cfg.out_json}, {"--csv", cfg.out_csv}, {"--benchmark_out", cfg.gbench_out}},
                         {{"--links", cfg.links_file}, {"--doctor", cfg.doctor_file}});
    // Before the sweep: what the doctor's sysfs checks say may hang this box (ACS, IOMMU), a line
    // each, so a user learns why before a case times out. No GPU work, nothing printed when clean.
    if (lead && !list_only && !role) {
      const char* root = std::getenv("ARBENCH_TEST_SYSFS_ROOT");  // the tests' fixture trees
      for (const std::string& line : doctor::hang_risks(root ? root : "/")) std::cerr << fit_line("arbench: " + line, 4);
    }
    sweep = expand_sweep(cfg, reg, b);
    scope = sweep_scope(*sweep);
    check_options_apply(cfg, b, scope);
    counts.filtered = filter_sweep(*sweep, cfg.filter);
    // Before any NCCL communicator exists (NCCL loads one tuner per process, once).
    // A child of one environment (env_child.hpp) inherits the plugin and keeps its own variables.
    if (!list_only && !role && sweep_needs_tuner(*sweep)) {
      const TunerPluginPath plugin = find_tuner_plugin();
      const std::string note = load_tuner_everywhere(plugin.path, plugin.found, plugin.looked);
      if (lead) std::cerr << "arbench: " << note << "\n";
    }
    links.emplace(cfg, b, world);
    cfg.tuning.topology_ring_orders = links->ring_orders(cfg.gpus);
    if (b == Backend::cuda && cfg.islands.empty()) {
      cfg.tuning.islands = links->islands(cfg.gpus);
      std::set<std::string> said;  // a split shows at every world size that holds it: say it once
      for (const auto& [w, notes] : links->island_notes())
        for (const auto& n : notes)
          if (lead && said.insert(n).second) std::cerr << "arbench: islands (" << w << " GPUs): " << n << "\n";
    }
    cfg.all_nvlink = links->all_nvlink(cfg.gpus);
  }, "setting up the run");
  // Longer than any step between two collectives (each wait of an op is bounded by --timeout).
  world.set_wait_bound_s(4 * cfg.timeout_s + 10);
  const int stall = parse_stall_process(std::getenv("ARBENCH_TEST_STALL_PROCESS"), world.size());
  if (stall >= 0)
    std::cerr << "arbench: test switch ARBENCH_TEST_STALL_PROCESS=" << stall << ": that process stops answering\n";
  const double timeout = cfg.timeout_s;
  const BrokenPair planted = cfg.test_broken_p2p;
  FabricCache fabrics([timeout, planted, &world](Backend bk, int w, const FabricEnv& env, const std::string& provider) {
    std::unique_ptr<Fabric> f;
    agree_on_errors(world, [&] { f = make_fabric(bk, w, env, timeout, world, provider, planted); },
                    "creating a fabric");
    return f;
  });
  Harness harness(cfg, b, reg, fabrics);
  RunDeviceState devices(b);
  harness.set_observer(devices.observer());
  if (!cfg.beside.empty()) harness.set_beside_load(make_beside_load);

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
  if (role) {  // a child: its parent's cases only
    auto asked = [&](const Case& c) { return std::find(role->cases.begin(), role->cases.end(), c.name()) != role->cases.end(); };
    std::erase_if(runnable, [&](const Case& c) { return !asked(c); });
    std::erase_if(skipped, [&](const Skipped& k) { return !asked(k.c); });
  }
  // The cases whose variant needs an environment of its own (a forced NCCL configuration) run in a
  // child process per environment on the cuda backend: no setenv beside NCCL's threads.
  std::map<std::string, ChildEnv> child_env;
  std::vector<std::pair<Case, ChildEnv>> child_cases;
  if (!role && b == Backend::cuda && !world.multi_process())
    for (const auto& c : runnable)
      if (ChildEnv env = reg.make(c.variant, b)->fabric_env(c, cfg.tuning); !env.empty()) {
        child_env[c.name()] = env;
        child_cases.emplace_back(c, env);
      }
  EnvChildren children(child_cases, own_command_line(), cfg.timeout_s);
  if (!lead) cfg.quiet = true;
  counts.cases = runnable.size();
  counts.skipped = skipped.size();

  if (list_only) {
    if (!lead) return kExitOk;
    std::cout << "# backend " << backend_name(b) << ": " << runnable.size() << " cases, " << skipped.size()
              << " skipped\n";
    for (const auto& c : runnable) std::cout << c.name() << "\n";
    print_skipped_cases(std::cout, skipped);
    print_catalogue(std::cout, reg, b);
    print_nccl_libraries(std::cout, nccl_library_lines(nccl_libs));
    return kExitOk;
  }
  if (runnable.empty()) {
    std::string why = skipped.empty() ? std::string("no cases") : skipped.front().reason;
    throw UsageError("nothing to run: all " + std::to_string(skipped.size()) + " cases of the sweep are skipped on the " +
                     std::string(backend_name(b)) + " backend (e.g. " + why + "); `arbench list` shows why");
  }
  // The speed-of-light floor's rates, once per run (run_sol.hpp): a topo file's, or a short probe.
  // Before the memory is sized: the copy-engine variants' default chunk (their staging) follows
  // the copy-engine rates.
  std::optional<RunSol> sol;
  agree_on_errors(world, [&] {
    sol.emplace(cfg, b, world, links->bus_ids(), cfg.tuning.topology_ring_orders, cfg.tuning.islands);
  }, "measuring the speed-of-light floor's patterns");
  cfg.tuning.copy_engine_gbps = sol->copy_engine_gbps(cfg.gpus);
  if (b == Backend::host && !world.multi_process())  // every rank's buffers live here: refuse what cannot fit
    check_memory_fits(runnable, [&](const Case& c) { return harness.memory_bytes(c); },
                      available_host_memory().value_or(std::numeric_limits<std::size_t>::max()));
  harness.reserve_symmetric_memory(runnable);  // one arena per fabric for the largest case

  if (!cfg.quiet)
    print_banner(std::cout, cfg, b, fabrics, links->source(), devices.banner(), counts, world,
                 symm_mem_lines(cfg.symm_mem, harness.provider_decisions(), harness.provider_notes()),
                 nccl_library_lines(nccl_libs), sol->source());

  // Every way out of the run leaves the finished cases (run_outputs.hpp ResultCheckpoint): the
  // files are rewritten as cases finish, and written at once by the last words of a process that
  // ends where the run loop cannot (a watchdog on a hung NCCL call, a World that aborts), or by a
  // second Ctrl-C.
  FinishedRun header;
  agree_on_errors(world, [&] { header = result_header(cfg, b, scope, *links, devices, world); },
                  "recording the provenance");
  header.provenance["sol"] = sol->provenance();
  header.skipped = skipped;
  std::map<std::string, std::string> library_versions;  // nccl-symm@<label>: its library's version
  for (const NcclLibrary* lib : nccl_libs) library_versions[lib->api.label] = nccl_version_text(lib->api.version);
  nccl_labels->set_facts(header.provenance.value("nccl_version", std::string()), cfg.all_nvlink, library_versions);
  std::vector<std::string> planned;
  for (const auto& c : runnable) planned.push_back(c.name());
  ResultCheckpoint checkpoint(header, cfg.out_json, cfg.out_csv, planned, lead);
  set_last_words([&checkpoint](const std::string& why) { checkpoint.write_now(why); });
  struct ForgetLastWords {
    ~ForgetLastWords() { set_last_words({}); }
  } forget_last_words;

  // Declared after the checkpoint, whose second-Ctrl-C writer uses it until `stop` is gone.
  std::atomic<bool> files_claimed{false};  // the first to write them: the end of the run, or a second Ctrl-C
  RunStop stop;  // Ctrl-C from here on: stop after the current case
  // A second Ctrl-C writes the cases finished so far at once (one process: under a launcher it
  // ends every process, which must not wait for each other).
  if (!world.multi_process() && (!cfg.out_json.empty() || !cfg.out_csv.empty()))
    stop.on_second_interrupt([&] {
      if (files_claimed.exchange(true)) return;  // the run is writing them already
      checkpoint.write_now("interrupted (Ctrl-C twice)", &std::cerr);
    });

  int columns = 80;
  const bool terminal = stderr_is_terminal(columns);
  // What each case will cost, for the ETA: its samples (adaptive: at most max) and warm-up.
  const int per_case = (adaptive_sampling(cfg) ? cfg.max_samples.value_or(1) : cfg.samples.value_or(1)) +
                       cfg.warmup.value_or(0);
  std::vector<PlannedCase> plan;
  for (const auto& c : runnable)
    plan.push_back({c.name(), std::string(family_name(c.family)), c.bytes, c.world, per_case});
  const ProgressMode progress_mode = !lead ? ProgressMode::off : terminal ? ProgressMode::terminal : ProgressMode::log;
  Progress progress(std::cerr, progress_mode, std::move(plan), terminal ? columns : 120);
  ProgressTicker progress_ticker(progress);  // a log line every 30 s, even inside one long case
  std::vector<CaseResult> results;
  results.reserve(runnable.size());
  for (const auto& c : runnable) {
    benchmark::RegisterBenchmark(c.name().c_str(), [&, c](benchmark::State& state) {
      if (stall == world.rank()) std::this_thread::sleep_for(std::chrono::hours(1));
      if (stop.requested()) {
        state.SkipWithError(kNotRunMessage);
        return;
      }
      progress.begin(c.name());
      CaseResult r;
      r.c = c;
      std::string escaped;  // an error that is not the case's own (the harness returns those)
      int escaped_code = kExitFailure;
      const auto in_child = child_env.find(c.name());
      for (auto _ : state) {
        try {
          r = in_child != child_env.end() ? children.run(c, in_child->second) : harness.run(c);
          links->annotate(r, cfg.tuning.islands);
          sol->annotate(r, reg);
          nccl_labels->label(r, std::cerr);
        } catch (const Error& e) {
          // One process alone raised it while its peers may wait: the run is aborted (main.cpp).
          if (world.multi_process() && dynamic_cast<const AgreedError*>(&e) == nullptr) throw;
          escaped = e.what();
          escaped_code = e.exit_code();
        }
        state.SetIterationTime(r.ok && escaped.empty() ? r.latency_us.median * 1e-6 : 0.0);
      }
      progress.end();
      if (!escaped.empty()) {
        // The run stops here, as after Ctrl-C: the finished cases are written, marked incomplete.
        state.SkipWithError(escaped.c_str());
        stop.request(c.name() + ": " + escaped, escaped_code);
        return;
      }
      if (!r.ok) state.SkipWithError(r.reason.c_str());
      if (r.device && r.device->abnormal()) state.SetLabel("DEVICE: " + device_marker(*r.device));
      else if (const std::string clamped = nccl_clamped_label(r); !clamped.empty()) state.SetLabel(clamped);
      // The devices are unusable after this case (a sticky CUDA error): stop, as after Ctrl-C.
      if (!harness.stop_reason().empty()) stop.request(harness.stop_reason(), kExitFailure);
      add_fusion_counters(r, results);  // from the cases run so far (unfused variants run first)
      set_counters(state, r);
      results.push_back(std::move(r));
      checkpoint.add(results.back());
    })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }

  std::ostringstream json_text, json_err;
  benchmark::JSONReporter json;
  json.SetOutputStream(&json_text);
  json.SetErrorStream(&json_err);
  const auto display = display_reporter(cfg, runnable, world.multi_process(), reg, b, sol->active());
  std::vector<benchmark::BenchmarkReporter*> to = {&json};
  if (display) to.push_back(display.get());
  TeeReporter tee(to);
  benchmark::RunSpecifiedBenchmarks(&tee, ".");  // the sweep is already filtered (filter_sweep)
  benchmark::ClearRegisteredBenchmarks();

  add_fusion_counters(results);  // again with every case, so the JSON does not depend on the order
  if (!cfg.quiet) std::cout << fusion_summary_table(results);
  if (const std::string phases = phase_breakdown_table(results); !cfg.quiet && !phases.empty())
    std::cout << "\n" << phases;
  if (lead) {
    print_footer(std::cout, results, skipped, stop.reason(), runnable.size());
    for (const std::string& line : {sampling_footer(cfg, results), devices.footer()})
      if (!line.empty()) std::cout << "  " << line << "\n";
    for (const std::string& line : nccl_label_footer(results)) std::cout << fit_line("  " + line, 4);
  }

  FinishedRun run = header;
  run.gbench_json = json_text.str();
  run.results = std::move(results);
  if (stop.requested()) {
    run.incomplete = Incomplete{stop.reason(), runnable.size(), {}};
    for (std::size_t i = run.results.size(); i < runnable.size(); ++i)
      run.incomplete->not_run.push_back(runnable[i].name());
  }
  if (files_claimed.exchange(true))  // a second Ctrl-C is writing them: it ends the process
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  agree_on_errors(world, [&] {
    if (lead) write_run_outputs(run, cfg.out_json, cfg.out_csv, std::cout);
  }, "writing the results");
  if (stop.requested()) {
    if (lead && !harness.stop_reason().empty())
      std::cout << "arbench: restart the process to get a fresh CUDA context\n";
    return stop.exit_code();
  }
  for (const auto& r : run.results)
    if (!r.ok) return kExitFailure;
  return kExitOk;
}

}  // namespace arbench
