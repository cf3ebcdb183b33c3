// One model case: a kernel's model point (test type, configuration), the search that explores it
// and what it must end in (the correct protocol passes; a mutant is killed, i.e. Relacy reports
// any failure: data race, failed assertion, deadlock, livelock).
//
// Searches (docs/verification.md, "Bounds"):
//   random   Relacy's random scheduler, `iterations` runs (iteration i seeds with i: deterministic);
//            a load may return up to 2 older stores (atomic_history_size 3)
//   bound    context-bounded search: every schedule with at most `bound` preemptions, exhaustively
//            (a load may return 1 older store)
//   full     every schedule (only the smallest points fit)
// Each search is a separate template instantiation (compile time), so a case names its scheduler
// at compile time: random_case / bound_case / full_case.
#pragma once

#include <type_traits>

#include "tests/model/model_world.hpp"
#include "tests/model/relacy_mem.hpp"

namespace arbench::model {

using RunFn = rl::test_result_e (*)(rl::test_params&);

struct ModelCase {
  TwinKernel kernel = TwinKernel::oneshot_pull;
  std::string point;        // e.g. "W2 B1 T2 ops3 near-wrap"
  std::string mutant;       // empty: the correct protocol
  bool from_score = false;  // a mutant of the mutation score (tests/mutation/mutant_table.hpp)
  algo::Fault fault = algo::Fault::none;
  Weak weak = Weak::none;
  bool expect_pass = true;  // false: the mutant must be killed
  ModelConfig cfg;
  rl::scheduler_type_e sched = rl::sched_random;
  unsigned long iterations = 0;  // random: the runs; bound/full: a cap (the search ends when exhausted)
  unsigned bound = 0;
  RunFn run = nullptr;
  RunFn baseline = nullptr;  // a mutant's point with no fault planted: must pass, or a kill proves nothing
  ModelConfig baseline_cfg;  // its configuration (without a fault the config plants, e.g. the credit wait's)
  const char* note = "";  // why a mutant is expected to pass (an equivalent mutant)
};

// rl::simulate for one scheduler only (it instantiates all three): on a failure, the failing
// iteration is replayed with its history collected, which Relacy prints to p.output_stream.
template <class Test, rl::scheduler_type_e S>
rl::test_result_e run_search(rl::test_params& p) {
  constexpr std::size_t kThreads = Test::params::thread_count;
  using Sched = std::conditional_t<S == rl::sched_random, rl::random_scheduler<kThreads>,
                                   std::conditional_t<S == rl::sched_bound, rl::context_bound_scheduler<kThreads>,
                                                      rl::full_search_scheduler<kThreads>>>;
  p.search_type = S;
  rl::ostringstream state;
  const rl::test_result_e res = rl::run_test<Test, Sched>(p, state, false);
  if (res != rl::test_result_success && !p.collect_history) {
    const rl::iteration_t stop = p.stop_iteration;
    p.initial_state = state.str();
    p.collect_history = true;
    rl::ostringstream again;
    rl::run_test<Test, Sched>(p, again, true);
    p.collect_history = false;
    p.initial_state.clear();
    p.stop_iteration = stop;
    p.test_result = res;
  }
  return res;
}

// The configurations the case lists share (cases_*.cpp, mutants_*.cpp); the rest is
// ModelConfig's defaults (2 ops; 19 elements = 3 bf16 packs, the last partial; 2 rows of 9).
struct Configs {
  ModelConfig ops2, ops3, wrap, missing, one_pack, wide, rows3;
  Configs() {
    ops3.ops = 3;
    wrap.ops = 3;
    wrap.start = 0xfffffffeu;  // 3 ops cross 2^32
    missing.scenario = Scenario::missing_rank;
    one_pack.elems = 5;  // one partial pack
    wide.tokens = 1;     // rows: 1 row of 27 = 4 packs, so the norm's lane tree crosses threads with T = 2
    wide.hidden = 27;
    rows3.tokens = 3;  // rows: at W3 every rank owns a row; at B2 both blocks own rows
  }
};

// "W2 B1 T2 ops3" and the config's distinguishing marks (ring: C for channels).
std::string point_name(TwinKernel k, int world, int blocks, int threads, const ModelConfig& c);

template <class Test>
ModelCase case_of(const ModelConfig& cfg) {
  ModelCase c;
  c.kernel = Test::kKernel;
  c.point = point_name(Test::kKernel, Test::kWorld, Test::kBlocks, Test::kThreads, cfg);
  c.cfg = cfg;
  return c;
}

template <class Test>
ModelCase random_case(const ModelConfig& cfg, unsigned long iterations) {
  ModelCase c = case_of<Test>(cfg);
  c.sched = rl::sched_random;
  c.iterations = iterations;
  c.run = &run_search<Test, rl::sched_random>;
  return c;
}
template <class Test>
ModelCase bound_case(const ModelConfig& cfg, unsigned bound) {
  ModelCase c = case_of<Test>(cfg);
  c.sched = rl::sched_bound;
  c.iterations = ~0ul >> 1;
  c.bound = bound;
  c.run = &run_search<Test, rl::sched_bound>;
  return c;
}
template <class Test>
ModelCase full_case(const ModelConfig& cfg) {
  ModelCase c = case_of<Test>(cfg);
  c.sched = rl::sched_full;
  c.iterations = ~0ul >> 1;
  c.run = &run_search<Test, rl::sched_full>;
  return c;
}

// A mutant case: the random scheduler, stopped at its first failure. name == nullptr: the
// mutation score's mutant of Test::Mem's fault, by its name in the score.
inline constexpr unsigned long kMutantIterations = 20000;
inline const char* score_mutant_name(algo::Fault f) {
  for (const testing::Mutant& m : testing::mutants())
    if (m.fault == f) return m.name;
  return "(not in the score)";
}
template <class Test>
ModelCase mutant_case(const ModelConfig& cfg, const char* name) {
  ModelCase c = random_case<Test>(cfg, kMutantIterations);
  c.from_score = name == nullptr;
  c.mutant = name != nullptr ? name : score_mutant_name(Test::Mem::kFault);
  c.fault = Test::Mem::kFault;
  c.weak = Test::Mem::kWeak;
  c.expect_pass = false;
  c.baseline = &run_search<typename Test::template With<RelacyMem<>>, rl::sched_random>;
  c.baseline_cfg = cfg;
  return c;
}

// The case lists, one translation unit per family (they compile in parallel).
void symm_cases(std::vector<ModelCase>& out);
void ring_cases(std::vector<ModelCase>& out);
void fused_cases(std::vector<ModelCase>& out);
void island_cases(std::vector<ModelCase>& out);
void fused_island_cases(std::vector<ModelCase>& out);
void fp8_cases(std::vector<ModelCase>& out);
// Mutants: the mutation score's (tests/mutation/mutant_table.hpp) at their model points, and the
// model-only ones (weak-memory faults, the ring's credit wait).
void score_mutant_cases_a(std::vector<ModelCase>& out);
void score_mutant_cases_b(std::vector<ModelCase>& out);
void weak_mutant_cases(std::vector<ModelCase>& out);
void island_mutant_cases(std::vector<ModelCase>& out);
void fused_island_mutant_cases(std::vector<ModelCase>& out);
void fp8_mutant_cases(std::vector<ModelCase>& out);

}  // namespace arbench::model
