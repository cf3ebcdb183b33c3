// arbench_model: the protocols under the Relacy model checker (ctest label model; tests/model/README.md).
//
//   arbench_model --kernel NAME          the correct protocol of kernel NAME at every configuration
//                                        of its list (random and bounded searches); exit 1 unless
//                                        every one passes. A failure prints Relacy's trace.
//   arbench_model --mutants              every mutant of the mutation score on every kernel it
//                                        targets, at its model point, plus the model-only mutants;
//                                        prints the table and "model-checked: K/N mutants killed";
//                                        exit 1 unless every one is killed (a score mutant with no
//                                        model point counts as survived) and every point passes
//                                        without its fault
//   arbench_model --trace FAULT NAME     one score mutant (faults.hpp's name, e.g. store_relaxed)
//                                        on kernel NAME with Relacy's full trace on stdout; exit 0
//                                        iff it was killed and the trace names a protocol line
//   arbench_model --list                 every case
// Options: --filter TEXT (only cases whose line contains TEXT), --scale X (random searches run X
// times their iterations; default $ARBENCH_MODEL_SCALE or 1), --history FILE (every failure's
// trace, expected ones too). Exit 2: bad usage; 3: a harness error (e.g. an unmodelled access).
#include <sys/time.h>

#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "tests/model/model_case.hpp"

// relacy.hpp replaces the global operator new/delete (Relacy's allocator inside a run), but not
// the sized operator delete that libstdc++ calls since C++14: that one would ::free Relacy's
// memory ("free(): invalid pointer"). Route it to the replaced unsized one. Exactly one TU of
// the binary defines these.
#pragma push_macro("delete")
#undef delete
void operator delete(void* p, std::size_t) noexcept { ::operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { ::operator delete[](p); }
#pragma pop_macro("delete")

namespace arbench::model {

std::string point_name(TwinKernel k, int world, int blocks, int threads, const ModelConfig& c) {
  std::string s = "W" + std::to_string(world) + (k == TwinKernel::ring ? " C" : " B") + std::to_string(blocks) + " T" +
                  std::to_string(threads);
  s += c.scenario == Scenario::missing_rank ? " rank 1 missing" : " ops" + std::to_string(c.ops);
  if (k == TwinKernel::ring) s += " chunk" + std::to_string(c.chunk_packs);
  if (testing::is_norm_kernel(k)) s += " rows" + std::to_string(c.tokens) + "x" + std::to_string(c.hidden);
  else if (c.elems != ModelConfig{}.elems) s += " n" + std::to_string(c.elems);
  if (c.start != algo::kEpochStart) s += " near-wrap";
  if (testing::is_island_kernel(k)) s += " islands " + algo::islands_text(algo::island_labels(c.islands, world));
  return s;
}

namespace {

// The fault's name in include/arbench/algo/faults.hpp (what --trace takes).
const char* fault_id(algo::Fault f) {
  switch (f) {
    case algo::Fault::none: return "none";
    case algo::Fault::store_relaxed: return "store_relaxed";
    case algo::Fault::load_relaxed: return "load_relaxed";
    case algo::Fault::block_sync_skipped: return "block_sync_skipped";
    case algo::Fault::block_all_own: return "block_all_own";
    case algo::Fault::ll_torn: return "ll_torn";
    case algo::Fault::epoch_stall: return "epoch_stall";
    case algo::Fault::slot_early: return "slot_early";
    case algo::Fault::partition_edge: return "partition_edge";
    case algo::Fault::norm_tree_unsynced: return "norm_tree_unsynced";
    case algo::Fault::cross_wait_skipped: return "cross_wait_skipped";
    case algo::Fault::cross_dest_dropped: return "cross_dest_dropped";
    case algo::Fault::fp8_scale_doubled: return "fp8_scale_doubled";
    case algo::Fault::fp8_scale_dropped: return "fp8_scale_dropped";
    case algo::Fault::fp8_amax_ignored: return "fp8_amax_ignored";
  }
  return "?";
}

const char* sched_name(const ModelCase& c) {
  static char buf[32];
  if (c.sched == rl::sched_random) std::snprintf(buf, sizeof buf, "random %lu", c.iterations);
  else if (c.sched == rl::sched_bound) std::snprintf(buf, sizeof buf, "bound %u", c.bound);
  else std::snprintf(buf, sizeof buf, "full");
  return buf;
}

struct Options {
  std::string kernel, filter, history, trace_fault;
  bool mutants = false, list = false;
  double scale = 1.0;
};

std::vector<ModelCase> all_cases() {
  std::vector<ModelCase> v;
  symm_cases(v);
  ring_cases(v);
  fused_cases(v);
  island_cases(v);
  fused_island_cases(v);
  fp8_cases(v);
  score_mutant_cases_a(v);
  score_mutant_cases_b(v);
  weak_mutant_cases(v);
  island_mutant_cases(v);
  fused_island_mutant_cases(v);
  fp8_mutant_cases(v);
  return v;
}

std::string line_of(const ModelCase& c) {
  return std::string(testing::twin_kernel_name(c.kernel)) + " " + c.point + (c.mutant.empty() ? "" : " / " + c.mutant);
}
// What --filter matches: the line and the search.
bool chosen_by(const Options& o, const ModelCase& c) {
  return o.filter.empty() || (line_of(c) + " " + sched_name(c)).find(o.filter) != std::string::npos;
}

// Full and context-bounded searches ignore the iteration count: they run until the schedule tree
// is exhausted. A protocol change that blows the tree up must fail with the case's name, not as
// ctest's anonymous timeout: each such search gets kSearchLimitS of CPU time (ITIMER_VIRTUAL:
// the machine's load does not count; 7x the slowest bounded case, 11.8 s on an idle 2-core box;
// tests/model/README.md).
constexpr unsigned kSearchLimitS = 90;
char g_running[160] = "";  // the case being searched, for the alarm handler (no allocation there)
void install_search_guard() {
  struct sigaction sa {};
  sa.sa_handler = [](int) {
    static const char head[] = "\narbench_model: the exhaustive/bounded search of ";
    static const char tail[] = " exceeded its limit (90 s of CPU time): the protocol's schedule tree grew; "
                               "shrink the configuration or move it to random search (tests/model/cases_*.cpp)\n";
    (void)!write(2, head, sizeof head - 1);
    (void)!write(2, g_running, std::strlen(g_running));
    (void)!write(2, tail, sizeof tail - 1);
    _exit(1);
  };
  sigaction(SIGVTALRM, &sa, nullptr);
}

struct Outcome {
  rl::test_result_e result = rl::test_result_success;
  unsigned long long iterations = 0;
  double seconds = 0;
};

// Runs one search. Relacy prints a failure's trace to `trace` (never a std::ostringstream made
// outside the run: it would be regrown inside with Relacy's allocator and freed with the other).
Outcome run(RunFn fn, const ModelConfig& cfg, rl::scheduler_type_e sched, unsigned long iterations, unsigned bound,
            std::ostream& trace) {
  static std::ofstream null_out("/dev/null");
  g_cfg = cfg;
  rl::test_params p;
  p.search_type = sched;
  p.iteration_count = iterations;
  p.context_bound = bound;
  p.execution_depth_limit = 20000;  // the default (2000) reports false livelocks on 3-op runs
  p.output_stream = &trace;
  p.progress_stream = &null_out;
  const auto t0 = std::chrono::steady_clock::now();
  itimerval limit{};
  limit.it_value.tv_sec = sched != rl::sched_random ? kSearchLimitS : 0;  // 0: no limit
  setitimer(ITIMER_VIRTUAL, &limit, nullptr);
  fn(p);
  limit.it_value.tv_sec = 0;
  setitimer(ITIMER_VIRTUAL, &limit, nullptr);
  Outcome o;
  o.result = p.test_result;
  o.iterations = p.stop_iteration;
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return o;
}

unsigned long scaled(const ModelCase& c, double scale) {
  if (c.sched != rl::sched_random || !c.mutant.empty()) return c.iterations;
  return static_cast<unsigned long>(std::max(1.0, std::round(static_cast<double>(c.iterations) * scale)));
}

int run_kernel(const Options& o, TwinKernel k, std::ostream* history) {
  int bad = 0, n = 0;
  double total = 0;
  for (const ModelCase& c : all_cases()) {
    if (c.kernel != k || !c.mutant.empty() || !chosen_by(o, c)) continue;
    std::snprintf(g_running, sizeof g_running, "%s (%s)", line_of(c).c_str(), sched_name(c));
    const Outcome r = run(c.run, c.cfg, c.sched, scaled(c, o.scale), c.bound, history ? *history : std::cout);
    const bool ok = r.result == rl::test_result_success;
    bad += ok ? 0 : 1;
    ++n;
    total += r.seconds;
    std::printf("%-46s %-12s %-28s %9llu it %7.2f s%s\n", line_of(c).c_str(), sched_name(c),
                rl::test_result_str(r.result), r.iterations, r.seconds, ok ? "" : "   FAILED (trace above)");
    std::fflush(stdout);
  }
  if (n == 0) {
    std::fprintf(stderr, "arbench_model: no case of %s matches '%s'\n", testing::twin_kernel_name(k), o.filter.c_str());
    return 2;
  }
  std::printf("%s: %d configurations, %d failed, %.1f s\n", testing::twin_kernel_name(k), n, bad, total);
  return bad == 0 ? 0 : 1;
}

int run_mutants(const Options& o, std::ostream* history) {
  static std::ofstream null_out("/dev/null");
  std::ostream& trace = history ? *history : null_out;
  const std::vector<ModelCase> cases = all_cases();
  std::vector<const ModelCase*> chosen;
  for (const ModelCase& c : cases)
    if (!c.mutant.empty() && chosen_by(o, c)) chosen.push_back(&c);

  // Baselines: each mutant point, with no fault, must pass.
  int bad = 0;
  std::set<std::pair<RunFn, std::string>> done;
  for (const ModelCase* c : chosen) {
    if (!done.insert({c->baseline, c->point}).second) continue;
    const Outcome r = run(c->baseline, c->baseline_cfg, rl::sched_random, 2000, 0, std::cout);
    if (r.result != rl::test_result_success) {
      ++bad;
      std::printf("BASELINE FAILED: %s %s with no fault: %s (trace above); its kills prove nothing\n",
                  testing::twin_kernel_name(c->kernel), c->point.c_str(), rl::test_result_str(r.result));
    }
  }
  std::printf("%zu mutant points pass without their fault (random 2000)\n\n", done.size());

  std::printf("%-28s %-14s %-30s %-9s %-24s %s\n", "mutant", "kernel", "point", "expected", "observed", "iteration");
  struct Tally {
    int runs = 0, as_expected = 0;
  };
  std::vector<std::pair<std::string, Tally>> tally;  // in report order
  auto tally_of = [&](const std::string& name) -> Tally& {
    for (auto& [n, t] : tally)
      if (n == name) return t;
    return tally.emplace_back(name, Tally{}).second;
  };
  double total = 0;
  for (const ModelCase* c : chosen) {
    const Outcome r = run(c->run, c->cfg, c->sched, c->iterations, c->bound, trace);
    total += r.seconds;
    const bool killed = r.result != rl::test_result_success;
    const bool good = killed != c->expect_pass;
    Tally& t = tally_of(c->mutant);
    ++t.runs;
    t.as_expected += good ? 1 : 0;
    bad += good ? 0 : 1;
    std::printf("%-28s %-14s %-30s %-9s %-24s %llu%s%s\n", c->mutant.c_str(), testing::twin_kernel_name(c->kernel),
                c->point.c_str(), c->expect_pass ? "pass" : "kill", rl::test_result_str(r.result), r.iterations,
                good ? "" : "   MISMATCH", *c->note ? (std::string("   (") + c->note + ")").c_str() : "");
    std::fflush(stdout);
  }
  // Every (mutant, target) of the mutation score needs its model point (unless filtered out).
  if (o.filter.empty())
    for (const testing::Mutant& m : testing::mutants())
      for (const testing::Target& tg : m.targets) {
        bool found = false;
        for (const ModelCase* c : chosen) found = found || (c->from_score && c->fault == m.fault && c->kernel == tg.kernel);
        if (found) continue;
        ++bad;
        ++tally_of(m.name).runs;
        std::printf("%-28s %-14s NO MODEL POINT: add one to tests/model/mutants_score_*.cpp\n", m.name,
                    testing::twin_kernel_name(tg.kernel));
      }
  int killed = 0, runs = 0, runs_ok = 0;
  for (const auto& [name, t] : tally) {
    killed += t.as_expected == t.runs ? 1 : 0;
    runs += t.runs;
    runs_ok += t.as_expected;
  }
  std::printf("\nmodel-checked: %d/%zu mutants killed (each on every kernel it runs against; %d/%d runs as expected, "
              "%.1f s)\n", killed, tally.size(), runs_ok, runs, total);
  return bad == 0 ? 0 : 1;
}

int run_trace(const Options& o, TwinKernel k) {
  const ModelCase* pick = nullptr;
  const std::vector<ModelCase> cases = all_cases();
  for (const ModelCase& c : cases)
    if (c.from_score && c.kernel == k && fault_id(c.fault) == o.trace_fault) pick = &c;
  if (pick == nullptr) {
    std::fprintf(stderr, "arbench_model: no model point of fault '%s' on %s (see --list)\n", o.trace_fault.c_str(),
                 testing::twin_kernel_name(k));
    return 2;
  }
  char path[] = "/tmp/arbench_model_trace_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    std::perror("arbench_model: mkstemp");
    return 3;
  }
  close(fd);
  Outcome r;
  {
    std::ofstream out(path);
    r = run(pick->run, pick->cfg, pick->sched, pick->iterations, pick->bound, out);
  }
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path);
  std::printf("%s (%s): %s at iteration %llu; Relacy's trace of that iteration:\n\n%s\n", line_of(*pick).c_str(),
              fault_id(pick->fault), rl::test_result_str(r.result), r.iterations, text.c_str());
  const bool killed = r.result != rl::test_result_success;
  const bool names_protocol = text.find("include/arbench/algo/") != std::string::npos;
  if (!killed) std::printf("NOT KILLED: the model passed the broken protocol\n");
  else if (!names_protocol) std::printf("the trace names no protocol line (include/arbench/algo/...)\n");
  else std::printf("killed; the trace names the protocol's lines\n");
  return killed && names_protocol ? 0 : 1;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "arbench_model: %s\nusage: arbench_model (--kernel NAME | --mutants | --trace FAULT NAME | --list) "
               "[--filter TEXT] [--scale X] [--history FILE]\n",
               why);
  std::exit(2);
}

std::optional<TwinKernel> kernel_named(const std::string& name) {
  for (TwinKernel k : testing::kTwinKernels)
    if (name == testing::twin_kernel_name(k)) return k;
  return std::nullopt;
}

TwinKernel kernel_arg(const std::string& name) {
  if (auto k = kernel_named(name)) return *k;
  std::string all;
  for (TwinKernel k : testing::kTwinKernels) all += std::string(all.empty() ? "" : ", ") + testing::twin_kernel_name(k);
  usage(("unknown kernel '" + name + "'; one of: " + all).c_str());
}

}  // namespace
}  // namespace arbench::model

int main(int argc, char** argv) {
  using namespace arbench::model;
  Options o;
  if (const char* s = std::getenv("ARBENCH_MODEL_SCALE")) o.scale = std::atof(s);
  std::string trace_kernel;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--kernel") o.kernel = value();
    else if (a == "--mutants") o.mutants = true;
    else if (a == "--list") o.list = true;
    else if (a == "--trace") {
      o.trace_fault = value();
      trace_kernel = value();
    } else if (a == "--filter") o.filter = value();
    else if (a == "--history") o.history = value();
    else if (a == "--scale") {
      const std::string v = value();
      char* end = nullptr;
      o.scale = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(o.scale > 0)) usage(("--scale " + v + ": want a number > 0").c_str());
    } else usage(("unknown argument '" + a + "'").c_str());
  }
  if (!(o.scale > 0)) usage("ARBENCH_MODEL_SCALE: want a number > 0");
  const int modes = !o.kernel.empty() + o.mutants + o.list + !o.trace_fault.empty();
  if (modes != 1) usage("give exactly one of --kernel, --mutants, --trace, --list");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  install_bypass_guard();
  install_search_guard();
  std::ofstream history_file;
  std::ostream* history = nullptr;
  if (!o.history.empty()) {
    history_file.open(o.history);
    if (!history_file) usage(("cannot write --history " + o.history).c_str());
    history = &history_file;
  }
  if (o.list) {
    for (const ModelCase& c : all_cases())
      std::printf("%-60s %-12s %s\n", line_of(c).c_str(), sched_name(c), c.mutant.empty() ? "pass" : c.expect_pass ? "pass (equivalent)" : "kill");
    return 0;
  }
  if (!o.trace_fault.empty()) return run_trace(o, kernel_arg(trace_kernel));
  if (o.mutants) return run_mutants(o, history);
  return run_kernel(o, kernel_arg(o.kernel), history);
}
