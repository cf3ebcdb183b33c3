// The harness checks every group of ops, not only the first: each checked group starts from an
// input set no earlier op read, with the outputs poisoned (docs/method.md, "Correctness every
// case"). Planted bugs that the old check (same inputs throughout, one look after timing) let
// through: a variant that returns the previous op's answer, one that stops writing after the
// warm-up, an in-place one whose timed ops do nothing, and fabrics whose timed ops or graph
// replays never run the op. Each must fail its case, naming the ops that went wrong.
#include <gtest/gtest.h>

#include <barrier>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arbench/core/oracle.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "kernels/symm/symm_twins.hpp"
#include "measure/harness.hpp"
#include "tests/host/measure/harness_test_util.hpp"

namespace arbench {
namespace {

enum class Bug {
  none,
  lags_one_op,          // writes the answer of the op before (the unfused-nccl launch-order bug)
  stops_after_warm_up,  // the first kWarmup ops per rank work, later ones write nothing
  wrong_when_recording, // ops with the phase marks on (--phases) leave rank 0's output unwritten
};

constexpr int kWarmup = 2;

// An all-reduce with a planted bug: the reference, or (wrong_when_recording) the one-shot pull
// twin, which records phase marks.
class Planted final : public Variant {
 public:
  explicit Planted(Bug bug)
      : bug_(bug),
        inner_(bug == Bug::wrong_when_recording ? make_symm_twin(SymmAlgo::oneshot_pull) : reference_entry().host()) {}
  Support supports(const Case& c, const Fabric& f) const override { return inner_->supports(c, f); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    inner_->prepare(c, f, b, t);
    out_ = b.out;
    bytes_ = c.bytes;
    ops_.assign(static_cast<std::size_t>(f.world()), 0);
    previous_.assign(static_cast<std::size_t>(f.world()), {});
  }
  void launch(int rank, Stream s) override {
    const auto r = static_cast<std::size_t>(rank);
    const int op = ops_[r]++;
    if (bug_ == Bug::stops_after_warm_up && op >= kWarmup) return;
    inner_->launch(rank, s);
    if (bug_ == Bug::wrong_when_recording && recording_ && rank == 0) {
      // The twin wrote the sum; the planted bug: the recording path leaves NaN there instead.
      std::memset(out_->local(rank), 0xff, bytes_);
    }
    if (bug_ != Bug::lags_one_op) return;
    auto* out = static_cast<std::uint8_t*>(out_->local(rank));
    std::vector<std::uint8_t> now(out, out + bytes_);
    if (!previous_[r].empty()) std::memcpy(out, previous_[r].data(), bytes_);
    previous_[r] = std::move(now);
  }
  std::vector<PhaseMark> phase_marks() const override { return inner_->phase_marks(); }
  void record_phases(RankBuffers* rec) override {
    recording_ = rec != nullptr;
    inner_->record_phases(rec);
  }

 private:
  Bug bug_;
  std::unique_ptr<Variant> inner_;
  bool recording_ = false;
  RankBuffers* out_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<int> ops_;  // per rank: each rank's thread touches only its own entry
  std::vector<std::vector<std::uint8_t>> previous_;
};

// A one-shot all-reduce over double-buffered symmetric slots, the way the custom kernels stage
// their data: op k copies the rank's input into its own slot k % 2, all ranks meet, each sums every
// peer's slot, all ranks meet again. The planted bug reads the peers' slot of the op before
// ((k - 1) % 2, from the second op on): a block that did not wait for this op's flag and read what
// the previous op left. While every op of a timed phase read the same inputs, that slot held the
// same numbers: the right answer, and a time too good.
class StaleSlot final : public Variant {
 public:
  explicit StaleSlot(bool stale) : stale_(stale) {}
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning&) override {
    c_ = c;
    in_ = b.in;
    out_ = b.out;
    slots_ = f.alloc(2 * c.bytes, Placement::symmetric);
    ops_.assign(static_cast<std::size_t>(f.world()), 0);
    meet_ = std::make_unique<std::barrier<>>(f.world());
  }
  void launch(int rank, Stream) override {
    const int k = ops_[static_cast<std::size_t>(rank)]++;
    const std::size_t n = c_.elements(), bytes = c_.bytes;
    auto* mine = static_cast<std::uint8_t*>(slots_->local(rank));
    std::memcpy(mine + std::size_t(k % 2) * bytes, in_->local(rank), bytes);
    meet_->arrive_and_wait();
    const int read = stale_ && k > 0 ? (k - 1) % 2 : k % 2;
    for (std::size_t i = 0; i < n; ++i) {
      float s = 0;
      for (int p = 0; p < c_.world; ++p)
        s += load_as_f32(static_cast<std::uint8_t*>(slots_->peer(rank, p)) + std::size_t(read) * bytes, i, c_.dtype);
      store_from_f32(out_->local(rank), i, c_.dtype, s);
    }
    meet_->arrive_and_wait();  // nobody overwrites a slot before every peer has read it
  }

 private:
  bool stale_;
  Case c_;
  RankBuffers* in_ = nullptr;
  RankBuffers* out_ = nullptr;
  std::unique_ptr<RankBuffers> slots_;
  std::vector<int> ops_;  // per rank: each rank's thread touches only its own entry
  std::unique_ptr<std::barrier<>> meet_;
};

enum class Skips { nothing, timed_ops, graph_replays };

// A host fabric whose timed isolated ops, or whose pipelined ops (the "graph replays"), never
// run the op: the timings come back, the outputs are whatever was there before.
class SkippingFabric final : public Fabric {
 public:
  SkippingFabric(int world, Skips skips) : f_(world), skips_(skips) {}
  Backend backend() const override { return f_.backend(); }
  int world() const override { return f_.world(); }
  std::string describe() const override { return f_.describe(); }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement p) override { return f_.alloc(bytes, p); }
  void upload(int rank, void* dst, const void* src, std::size_t n) override { f_.upload(rank, dst, src, n); }
  void download(int rank, void* dst, const void* src, std::size_t n) override { f_.download(rank, dst, src, n); }
  void run(const RankOp& op) override { f_.run(op); }
  IsolatedTimes time_isolated(const RankOp& op, int samples) override {
    if (skips_ == Skips::timed_ops) {
      IsolatedTimes t;
      t.samples.assign(static_cast<std::size_t>(samples), 1e-6);
      t.start_skew.assign(static_cast<std::size_t>(samples), 0.0);
      return t;
    }
    return f_.time_isolated(op, samples);
  }
  double time_pipelined(const RankOp& op, int ops, int reps) override {
    if (skips_ == Skips::graph_replays) return 1e-6;
    return f_.time_pipelined(op, ops, reps);
  }
  double timeout_s() const override { return f_.timeout_s(); }

 private:
  HostFabric f_;
  Skips skips_;
};

CaseResult run_planted(Bug bug, Skips skips, bool in_place, bool check = true, bool phases = false) {
  const Registry reg = testing::one_host_variant("planted", [bug] { return std::make_unique<Planted>(bug); });
  RunConfig cfg;
  cfg.warmup = kWarmup;
  cfg.samples = 3;
  cfg.pipelined_ops = 2;
  cfg.check = check;
  cfg.phases = phases;
  FabricCache fabrics([skips](Backend, int world, const FabricEnv&) {
    return std::make_unique<SkippingFabric>(world, skips);
  });
  Harness h(cfg, Backend::host, reg, fabrics);
  const Case c{"planted", Family::allreduce, DType::bf16, 3, 2 * 1000, 0, 0, in_place};
  EXPECT_TRUE(h.plan(c).ok);
  return h.run(c);
}

void expect_caught(const CaseResult& r, const std::string& when) {
  EXPECT_FALSE(r.ok) << "the planted bug passed the check";
  EXPECT_TRUE(r.checked);
  EXPECT_GT(r.wrong_elements, 0u);
  EXPECT_NE(r.reason.find(when), std::string::npos) << r.reason;
}

TEST(HarnessChecks, CorrectVariantPassesEveryCheck) {
  for (bool in_place : {false, true}) {
    const CaseResult r = run_planted(Bug::none, Skips::nothing, in_place);
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_TRUE(r.checked);
    EXPECT_EQ(r.wrong_elements, 0u);
  }
}

TEST(HarnessChecks, AnOpThatReturnsThePreviousOpsAnswerFails) {
  // The lag shows on an op whose predecessor read other inputs: within a timed phase the ops
  // alternate between two input sets, so the check after the timed ops already sees it (when
  // every timed op read the same inputs, only the eager op after timing could).
  expect_caught(run_planted(Bug::lags_one_op, Skips::nothing, false), "after the timed isolated ops");
}

TEST(HarnessChecks, TimedOpsThatWriteNothingFail) {
  expect_caught(run_planted(Bug::stops_after_warm_up, Skips::nothing, false), "after the timed isolated ops");
  expect_caught(run_planted(Bug::none, Skips::timed_ops, false), "after the timed isolated ops");
}

TEST(HarnessChecks, GraphReplaysThatWriteNothingFail) {
  expect_caught(run_planted(Bug::none, Skips::graph_replays, false), "after the pipelined ops");
}

TEST(HarnessChecks, InPlaceTimedOpsThatDoNothingFail) {
  // In place, the timed ops start from zero-sum inputs: any number of real ops leaves zeros, an
  // op that did nothing leaves a rank's non-zero input.
  expect_caught(run_planted(Bug::none, Skips::timed_ops, true), "after the timed isolated ops");
  expect_caught(run_planted(Bug::none, Skips::graph_replays, true), "after the pipelined ops");
  expect_caught(run_planted(Bug::stops_after_warm_up, Skips::nothing, true), "after warm-up");
}

TEST(HarnessChecks, PhaseTimelineOpsThatWriteWrongFail) {
  // --phases runs extra ops with the variant's phase marks on; they are checked like the timed
  // ones (fresh inputs before them), so a recording path that breaks the result is caught.
  const CaseResult ok = run_planted(Bug::none, Skips::nothing, false, true, /*phases=*/true);
  EXPECT_TRUE(ok.ok) << ok.reason;
  EXPECT_FALSE(ok.phases.has_value()) << "the reference records no marks";
  const CaseResult r = run_planted(Bug::wrong_when_recording, Skips::nothing, false, true, /*phases=*/true);
  EXPECT_TRUE(r.phases.has_value()) << r.reason;
  expect_caught(r, "after the phase-timeline ops");
  // Without --phases nothing records, so the same variant passes.
  const CaseResult quiet = run_planted(Bug::wrong_when_recording, Skips::nothing, false);
  EXPECT_TRUE(quiet.ok) << quiet.reason;
}

CaseResult run_stale(bool stale, int pipelined_ops) {
  const Registry reg = testing::one_host_variant("stale-slot", [stale] { return std::make_unique<StaleSlot>(stale); });
  RunConfig cfg;
  cfg.warmup = kWarmup;
  cfg.samples = 4;
  cfg.pipelined_ops = pipelined_ops;
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world); });
  Harness h(cfg, Backend::host, reg, fabrics);
  return h.run(Case{"stale-slot", Family::allreduce, DType::bf16, 3, 2 * 1000, 0, 0, false});
}

// The timed ops alternate between two input sets, so the stale read gives a wrong output that the
// check right after the timed ops sees, not only the eager op after everything.
TEST(HarnessChecks, ATwinThatReadsThePreviousOpsSlotFailsAfterTheTimedOps) {
  const CaseResult good = run_stale(false, 2);
  EXPECT_TRUE(good.ok) << good.reason;
  expect_caught(run_stale(true, 0), "after the timed isolated ops");
}

TEST(HarnessChecks, NoCheckMeansUnchecked) {
  const CaseResult r = run_planted(Bug::stops_after_warm_up, Skips::nothing, false, /*check=*/false);
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_FALSE(r.checked);
}

}  // namespace
}  // namespace arbench
