// --phases on the host backend (docs/latency-breakdown.md): every custom variant's twin records its
// protocol's marks on extra ops after the timed ones; the timeline is monotonic per rank and adds
// up to the op's time.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>

#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/symm/symm_twins.hpp"
#include "measure/harness.hpp"
#include "measure/phase_recorder.hpp"
#include "tests/host/measure/harness_test_util.hpp"
#include "tests/host/measure/phase_checks.hpp"

namespace arbench {
namespace {

// Harnesses of the host backend with --phases on.
class PhasesHost : public ::testing::Test {
 protected:
  PhasesHost() { cfg_.phases = true; }
  // Runs `c`, which must pass and record a sound timeline (tests/host/measure/phase_checks.hpp).
  PhaseTimeline recorded(const Case& c) {
    const CaseResult r = harness_.run(c);
    EXPECT_TRUE(r.ok) << c.name() << ": " << r.reason;
    if (!r.phases) {
      ADD_FAILURE() << c.name() << " recorded no timeline";
      return {};
    }
    testing::expect_sound_timeline(*r.phases, c.name());
    return *r.phases;
  }

  RunConfig cfg_ = testing::quick_config();
  const Registry reg_ = testing::host_registry();
  FabricCache fabrics_ = testing::host_fabric_cache();
  Harness harness_{cfg_, Backend::host, reg_, fabrics_};
};

TEST_F(PhasesHost, EveryAllreduceTwinRecordsASoundTimeline) {
  for (const char* v : {"oneshot-pull", "oneshot-push", "twoshot", "ring"})
    for (std::size_t bytes : {std::size_t{1024}, std::size_t{64} << 10}) {
      const PhaseTimeline t = recorded(Case{v, Family::allreduce, DType::bf16, 4, bytes});
      EXPECT_EQ(t.clock, "steady_clock");
      EXPECT_EQ(t.ops, kPhaseOps);
      EXPECT_EQ(t.ranks.size(), 4u);
    }
}

TEST_F(PhasesHost, FusedTwinsRecordTheirNormToo) {
  for (const char* v : {"fused-oneshot", "fused-twoshot", "unfused-oneshot"}) {
    const PhaseTimeline t = recorded(Case{v, Family::allreduce_rmsnorm, DType::bf16, 4, 8 * 256 * 2, 8, 256});
    EXPECT_NE(std::find(t.marks.begin(), t.marks.end(), "normed"), t.marks.end()) << v;
  }
}

TEST_F(PhasesHost, TheUnfusedPairRecordsBothKernelsInOrder) {
  const PhaseTimeline t = recorded(Case{"unfused-oneshot", Family::allreduce_rmsnorm, DType::bf16, 2, 4 * 256 * 2, 4, 256});
  EXPECT_EQ(t.marks, (std::vector<std::string>{"entry", "staged", "arrived", "peers", "reduced", "allreduce_exit",
                                               "norm_entry", "normed", "exit"}));
}

TEST(Phases, NotAskedNotRecordedAndAVariantWithoutMarksHasNone) {
  RunConfig cfg = testing::quick_config();
  const Registry reg = testing::host_registry();
  FabricCache fabrics = testing::host_fabric_cache();
  Harness plain(cfg, Backend::host, reg, fabrics);
  EXPECT_FALSE(plain.run(Case{"oneshot-pull", Family::allreduce, DType::bf16, 2, 1024}).phases.has_value());
  cfg.phases = true;
  Harness asked(cfg, Backend::host, reg, fabrics);
  const CaseResult r = asked.run(Case{"reference", Family::allreduce, DType::bf16, 2, 1024});
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_FALSE(r.phases.has_value()) << "the host-only yardstick names no marks";
}

// oneshot-pull's twin, counting the rank ops it runs with its phase marks on and off.
class CountingVariant final : public Variant {
 public:
  CountingVariant(int& on, int& off) : inner_(make_symm_twin(SymmAlgo::oneshot_pull)), on_(on), off_(off) {}
  Support supports(const Case& c, const Fabric& f) const override { return inner_->supports(c, f); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override { inner_->prepare(c, f, b, t); }
  void launch(int rank, Stream s) override {
    {
      std::lock_guard lk(mu_);
      ++(recording_ ? on_ : off_);
    }
    inner_->launch(rank, s);
  }
  void check_errors() override { inner_->check_errors(); }
  std::vector<PhaseMark> phase_marks() const override { return inner_->phase_marks(); }
  void record_phases(RankBuffers* rec) override {
    recording_ = rec != nullptr;
    inner_->record_phases(rec);
  }

 private:
  std::unique_ptr<Variant> inner_;
  int& on_;
  int& off_;
  bool recording_ = false;
  std::mutex mu_;
};

TEST(Phases, OnlyTheExtraOpsRecordNeverTheTimedOnes) {
  int on = 0, off = 0;
  const Registry reg =
      testing::one_host_variant("counting", [&] { return std::make_unique<CountingVariant>(on, off); });
  RunConfig cfg = testing::quick_config();  // 1 warm-up, 3 samples, 2 pipelined ops x 5 reps
  cfg.phases = true;
  FabricCache fabrics = testing::host_fabric_cache();
  Harness h(cfg, Backend::host, reg, fabrics);
  const CaseResult r = h.run(Case{"counting", Family::allreduce, DType::bf16, 2, 1024});
  ASSERT_TRUE(r.ok) << r.reason;
  ASSERT_TRUE(r.phases.has_value());
  EXPECT_EQ(on, 2 * kPhaseOps) << "each recorded op, on each of the 2 ranks, and nothing else";
  EXPECT_EQ(off, 2 * (1 + 3 + 2 * 5 + 1))
      << "warm-up, the timed samples, the pipelined regime and the checked eager op after timing record nothing";
}

}  // namespace
}  // namespace arbench
