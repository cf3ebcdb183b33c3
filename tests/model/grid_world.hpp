// The driver every model world shares: a modelled grid of World ranks x Blocks blocks x Threads
// threads (one Relacy thread each), its configuration, kernel boundaries and block barriers, the
// run loop of a thread's ops, the shadows of the symmetric layout's barrier flags and epoch
// counters, the verdict of after(), and the Relacy test object. A protocol's world (symm_model.hpp,
// ring_model.hpp, fused_model.hpp, island/...) adds only its buffers, the words it shadows, its
// kernel launches and its outputs' check.
//
//   GridWorld<Derived, ...>  the plumbing; Derived (CRTP) provides ranks[] (each with a `state`
//                            whose error.claimed records a timeout), launch<Mem>(at, op, k) for
//                            kernel k of op `op`, wrote_nothing(r) and check_op(r, op)
//   PackWorld<...>           the kernels that reduce `in` into `out` (symmetric, ring, island):
//                            the ranks' buffers, the oracle's inputs and the output check
//   ModelTest<M, World>      the rl::test_suite: one thread per grid position, check() after
//
// Relacy objects (atomics, vars, mutexes) are made in declaration order, per kind; the worlds
// keep that order (the barrier's mutexes, then the world's flags, packs, LL words and counters),
// so a schedule's seed replays the same run whichever world lays out the shadows.
#pragma once

#include "tests/model/model_world.hpp"
#include "tests/model/relacy_mem.hpp"

namespace arbench::model {

template <class Derived, TwinKernel Kern, int World, int Blocks, int Threads>
struct GridWorld : EnvBase {
  static constexpr TwinKernel kKernel = Kern;
  static constexpr int kWorld = World, kBlocks = Blocks, kThreads = Threads;
  static constexpr int kLaunchesPerOp = 1;  // add_rmsnorm: 2 (all-reduce, then the norm kernel)
  static constexpr const char* kErrorWhat = "a wait expired (or the protocol recorded an error)";
  template <class M>
  using For = Derived;  // the world of this point under policy M (symm: LL halves split or not)
  using Pos = GridPos<World, Blocks, Threads>;

  ModelConfig cfg;
  std::size_t n = 0, packs = 0;  // elements per op; the packs the protocol stages
  BlockSync<World, Blocks, Threads> sync;

  GridWorld() : cfg(g_cfg) {
    g_env = this;
    waits.enabled = cfg.park_waits && cfg.scenario == Scenario::ops;
    waits.threads = World * Blocks * Threads;
  }
  bool sync_and(bool ok) override { return sync.sync_and(ok); }
  int thread_rank() const override { return Pos(static_cast<int>(rl::thread_index())).rank; }

  bool missing() const { return cfg.scenario == Scenario::missing_rank; }
  std::uint64_t timeout_ns() const { return missing() ? cfg.missing_polls : ~std::uint64_t{0} >> 2; }

  // A rank's barrier flags (every phase, block and sender) and its blocks' epoch counters.
  void add_barrier_flags(FlagCell* cells, std::size_t& nf, void* scratch, std::uint32_t fill) {
    for (int ph = 0; ph < algo::kFlagPhases; ++ph)
      for (int b = 0; b < Blocks; ++b)
        for (int snd = 0; snd < World; ++snd) add_flag(cells[nf++], algo::flag_ptr(scratch, ph, b, snd), fill);
  }
  void add_epoch_counters(Counter* cells, std::size_t& nc, algo::RankState& state, std::uint32_t fill) {
    for (int b = 0; b < Blocks; ++b) add_counter(cells[nc++], &state.epoch[b], fill);
  }

  // The symmetric kernels' arguments of rank r (every rank's scratch is a peer's).
  algo::SymmArgs symm_args(int r, const void* in, void* out) {
    algo::SymmArgs a{};
    a.in = in;
    a.out = out;
    a.n = n;
    a.packs = packs;
    for (int p = 0; p < World; ++p) a.scratch[p] = self().ranks[p].scratch;
    a.state = &self().ranks[r].state;
    a.timeout_ns = timeout_ns();
    a.rank = r;
    a.world = World;
    return a;
  }

  // Relacy thread tid: its ops back to back, each a kernel boundary around each launch. In the
  // missing-rank scenario rank 1 never launches and the others run one op.
  template <class Mem>
  void run_thread(int tid) {
    const Pos at(tid);
    if (missing() && at.rank == 1) return;  // never launched
    const int ops = missing() ? 1 : cfg.ops;
    for (int op = 0; op < ops; ++op)
      for (int k = 0; k < Derived::kLaunchesPerOp; ++k) {
        const int launch = op * Derived::kLaunchesPerOp + k;
        sync.kernel_begin(tid, launch);
        self().template launch<Mem>(at, op, k);
        sync.kernel_end(tid, launch);
      }
  }

  // after(): every op's output of every rank right and no error recorded; missing-rank: every
  // launched rank (each depends on rank 1's data) recorded the timeout and wrote no output.
  void check() {
    if (missing()) {
      for (int r = 0; r < World; ++r) {
        if (r == 1) continue;
        MODEL_CHECK(self().ranks[r].state.error.claimed != 0u, "no wait expired although rank 1 never launched");
        MODEL_CHECK(self().wrote_nothing(r), "a rank wrote output in an op whose waits expired");
      }
      return;
    }
    for (int r = 0; r < World; ++r) {
      MODEL_CHECK(self().ranks[r].state.error.claimed == 0u, Derived::kErrorWhat);
      for (int op = 0; op < cfg.ops; ++op) self().check_op(r, op);
    }
  }

 protected:
  Derived& self() { return static_cast<Derived&>(*this); }
};

// A rank of the kernels that reduce `in` into `out`.
template <class State, std::size_t MaxPacks>
struct PackRank {
  void* scratch;  // guarded_scratch: the protocol's pointer arithmetic, never dereferenced
  void* mailbox;  // island kernels: the mailbox, inside scratch
  State state;
  Pack in[kMaxOps][MaxPacks], out[kMaxOps][MaxPacks];
};

// The worlds of the kernels that reduce `in` into `out`: n = cfg.elems, every op's input the
// oracle's, every output poisoned, checked element by element against the exact sum. A world may
// hide the three statics below (the FP8 kernels' symm world: more elements, its own staging size
// and inputs exact in e4m3).
template <class Derived, class State, std::size_t MaxPacks, TwinKernel Kern, int World, int Blocks, int Threads>
struct PackWorld : GridWorld<Derived, Kern, World, Blocks, Threads> {
  static constexpr std::size_t kMaxPacks = MaxPacks;  // of in and out
  using Rank = PackRank<State, MaxPacks>;
  Rank ranks[World];

  static std::size_t elems_of(const ModelConfig& c) { return c.elems; }
  static std::size_t staged_packs(std::size_t n) { return algo::pack_count(n, kD); }  // SymmArgs::packs
  static float input(int rank, int op, std::size_t i) { return input_value(rank, op, i); }

  PackWorld() {
    this->n = Derived::elems_of(this->cfg);
    this->packs = Derived::staged_packs(this->n);
    RL_ASSERT(algo::pack_count(this->n, kD) <= kMaxPacks && this->cfg.ops <= kMaxOps);
    std::memset(static_cast<void*>(ranks), 0, sizeof ranks);
    for (int r = 0; r < World; ++r)
      for (int op = 0; op < this->cfg.ops; ++op) {
        for (std::size_t i = 0; i < this->n; ++i) store_from_f32(ranks[r].in[op], i, kD, Derived::input(r, op, i));
        std::memset(ranks[r].out[op], kPoison, sizeof ranks[r].out[op]);
      }
  }
  bool wrote_nothing(int r) const { return untouched(ranks[r].out[0], this->n * dtype_size(kD)); }
  void check_op(int r, int op) {
    for (std::size_t i = 0; i < this->n; ++i)
      MODEL_CHECK(load_as_f32(ranks[r].out[op], i, kD) == oracle_sum(World, op, i, &Derived::input),
                  "output differs from the oracle");
  }
};

template <class M, class World>
struct ModelTest : rl::test_suite<ModelTest<M, World>, World::kWorld * World::kBlocks * World::kThreads> {
  using Mem = M;
  template <class M2>
  using With = ModelTest<M2, typename World::template For<M2>>;  // the same point with another policy
  static constexpr TwinKernel kKernel = World::kKernel;
  static constexpr int kWorld = World::kWorld, kBlocks = World::kBlocks, kThreads = World::kThreads;
  World w;
  void thread(unsigned tid) { w.template run_thread<M>(static_cast<int>(tid)); }
  void after() { w.check(); }
};

}  // namespace arbench::model
