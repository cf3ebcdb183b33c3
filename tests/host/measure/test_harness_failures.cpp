// A failed or hung case never takes the run down (bench/measure/harness.hpp): a hang fails the case
// naming it, aborts its fabric while the case's buffers still exist, and drops the fabric so the
// next case gets a fresh one; a device left unusable stops the run. Also the fabric cache's rule
// for fabrics created with NCCL variables set, the LL128 policy, the watchdog cap and the test
// switch. Fabrics here are fakes around a HostFabric, so the failures are planted, not waited for.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "measure/harness.hpp"
#include "measure/nccl/nccl_protocol_policy.hpp"
#include "tests/host/measure/harness_test_util.hpp"

namespace arbench {
namespace {

// What every FakeFabric of a test shares: how many exist, and what happened to them.
struct FabricLog {
  int alive = 0;
  int created = 0;
  int aborted = 0;
  int buffers_alive = 0;
  int buffers_alive_at_abort = -1;
  int alive_when_env_fabric_created = -1;
};

// Counts its buffers, so a test sees whether abort() came before they were freed.
class CountedBuffers final : public RankBuffers {
 public:
  CountedBuffers(std::unique_ptr<RankBuffers> inner, FabricLog& log) : inner_(std::move(inner)), log_(log) {
    ++log_.buffers_alive;
  }
  ~CountedBuffers() override { --log_.buffers_alive; }
  std::size_t bytes() const override { return inner_->bytes(); }
  bool symmetric() const override { return inner_->symmetric(); }
  void* local(int rank) const override { return inner_->local(rank); }
  void* peer(int rank, int peer) const override { return inner_->peer(rank, peer); }

 private:
  std::unique_ptr<RankBuffers> inner_;
  FabricLog& log_;
};

// A host fabric with planted behaviour: run() hangs or faults on its first call when told to,
// health() reports what it is told, and it may pretend to hold NCCL communicators.
class FakeFabric final : public Fabric {
 public:
  // group_failed: the first symmetric allocation fails the way a failed grouped
  // ncclCommWindowRegister does (NcclGroupError), leaving the fabric unusable; poisoned: the fabric
  // becomes unusable without the case failing.
  enum class Fault { none, hang, sticky, group_failed, poisoned };
  FakeFabric(int world, FabricLog& log, Fault fault, bool has_comm) : inner_(world, 0.2), log_(log), fault_(fault), has_comm_(has_comm) {
    ++log_.alive;
    ++log_.created;
  }
  ~FakeFabric() override { --log_.alive; }
  Backend backend() const override { return Backend::host; }
  int world() const override { return inner_.world(); }
  std::string describe() const override { return "fake " + std::to_string(world()); }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement p) override {
    if (p == Placement::symmetric && unusable_.empty() && (fault_ == Fault::group_failed || fault_ == Fault::poisoned)) {
      unusable_ = "ncclCommWindowRegister (grouped) failed: some communicators keep the call queued";
      if (fault_ == Fault::group_failed) throw CaseError(unusable_);
    }
    return std::make_unique<CountedBuffers>(inner_.alloc(bytes, p), log_);
  }
  std::string unusable_reason() const override { return unusable_; }
  void upload(int r, void* d, const void* s, std::size_t n) override { inner_.upload(r, d, s, n); }
  void download(int r, void* d, const void* s, std::size_t n) override { inner_.download(r, d, s, n); }
  void run(const RankOp& op) override {
    if (fault_ == Fault::hang) throw HangError("rank 1 (GPU 1) did not finish within 4 s");
    if (fault_ == Fault::sticky) throw CaseError("cudaStreamQuery failed: cudaErrorIllegalAddress");
    inner_.run(op);
  }
  IsolatedTimes time_isolated(const RankOp& op, int samples) override { return inner_.time_isolated(op, samples); }
  double time_pipelined(const RankOp& op, int ops, int reps) override { return inner_.time_pipelined(op, ops, reps); }
  double timeout_s() const override { return inner_.timeout_s(); }
  void* nccl_comm(int) const override { return has_comm_ ? const_cast<FakeFabric*>(this) : nullptr; }
  void abort() override {
    ++log_.aborted;
    log_.buffers_alive_at_abort = log_.buffers_alive;
  }
  std::string health() const override {
    return fault_ == Fault::sticky ? "GPU 1 reports cudaErrorIllegalAddress: its CUDA context is unusable" : "";
  }

 private:
  HostFabric inner_;
  FabricLog& log_;
  Fault fault_;
  bool has_comm_;
  std::string unusable_;
};

using arbench::testing::host_registry;
using arbench::testing::IdleVariant;
using arbench::testing::one_host_variant;
using arbench::testing::quick_config;

Case reference_case(int world) { return Case{"reference", Family::allreduce, DType::bf16, world, 1024, 0, 0, false}; }

// A harness whose first fabric gets `first` (later ones behave), with its log.
struct FaultyRun {
  explicit FaultyRun(FakeFabric::Fault first, int absent_rank = -1)
      : fabrics([this, first](Backend, int world, const FabricEnv&) {
          return std::make_unique<FakeFabric>(world, log, log.created == 0 ? first : FakeFabric::Fault::none, false);
        }) {
    cfg.test_absent_rank = absent_rank;
  }
  Registry reg = host_registry();
  RunConfig cfg = quick_config();
  FabricLog log;
  FabricCache fabrics;
  Harness h{cfg, Backend::host, reg, fabrics};

  // After case c failed on a fabric that cannot be reused, on healthy devices: the fabric was
  // aborted and dropped, the run goes on, and the next case runs on a fresh fabric.
  void expect_fabric_replaced(const Case& c) {
    EXPECT_EQ(log.aborted, 1) << "the fabric's communicators are aborted, not reused";
    EXPECT_EQ(log.alive, 0) << "the fabric must be dropped";
    EXPECT_EQ(h.stop_reason(), "") << "the devices are fine: the run goes on";
    const CaseResult next = h.run(c);
    EXPECT_TRUE(next.ok) << next.reason;
    EXPECT_EQ(log.created, 2) << "the next case runs on a fresh fabric";
  }
};

TEST(HarnessFailures, AHangFailsTheCaseAbortsItsFabricAndTheRunGoesOn) {
  FaultyRun run(FakeFabric::Fault::hang);
  const Case c = reference_case(2);
  const CaseResult r = run.h.run(c);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find(c.name() + " did not finish"), std::string::npos) << r.reason;
  EXPECT_GT(run.log.buffers_alive_at_abort, 0) << "abort must stop the fabric before the case's buffers are freed";
  run.expect_fabric_replaced(c);
}

// A failed grouped NCCL registration leaves queued calls in some communicators: the next case's
// group would run them on those only (a hang). The fabric is replaced, never reused; the run goes
// on. Before, only a hang or a sick device replaced a fabric, so the next case reused it.
TEST(HarnessFailures, AFailedGroupedRegistrationReplacesTheFabric) {
  FaultyRun run(FakeFabric::Fault::group_failed);
  const Case c = reference_case(2);
  const CaseResult r = run.h.run(c);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("ncclCommWindowRegister"), std::string::npos) << r.reason;
  run.expect_fabric_replaced(c);
}

TEST(HarnessFailures, AFabricLeftUnusableIsReplacedEvenAfterACaseThatPassed) {
  FaultyRun run(FakeFabric::Fault::poisoned);
  const Case c = reference_case(2);
  EXPECT_TRUE(run.h.run(c).ok);
  EXPECT_EQ(run.log.alive, 0);
  EXPECT_TRUE(run.h.run(c).ok);
  EXPECT_EQ(run.log.created, 2);
}

TEST(HarnessFailures, AnUnusableDeviceStopsTheRun) {
  FaultyRun run(FakeFabric::Fault::sticky);
  const CaseResult r = run.h.run(reference_case(2));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("cudaErrorIllegalAddress"), std::string::npos) << r.reason;
  EXPECT_NE(run.h.stop_reason().find("left the devices unusable"), std::string::npos) << run.h.stop_reason();
  EXPECT_EQ(run.log.alive, 0);
}

// A GPU that faulted for good while a fabric was being set up (the peer check: issue of a sticky
// error) ends the run; any other fabric failure of a provider is that variant's skip.
TEST(HarnessFailures, ADeviceFaultWhilePlanningEndsTheRunNotASkip) {
  class NcclLike final : public IdleVariant {
   public:
    DataMover data_mover() const override { return DataMover::nccl; }
  };
  Registry reg;
  VariantEntry e;
  e.name = "nccl-like";
  e.gpu = [] { return std::make_unique<NcclLike>(); };
  reg.add(e);
  const Case c{"nccl-like", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false};
  for (const bool fault : {false, true}) {
    FabricCache fabrics([fault](Backend, int, const FabricEnv&, const std::string&) -> std::unique_ptr<Fabric> {
      if (fault) throw DeviceFaultError("a GPU faulted during the functional peer-to-peer check: Xid 79");
      throw EnvironmentError("NCCL cannot be loaded here");
    });
    Harness h(quick_config(), Backend::cuda, reg, fabrics);
    if (fault) {
      EXPECT_THROW(h.plan(c), DeviceFaultError);
    } else {
      const Support s = h.plan(c);
      EXPECT_FALSE(s.ok);
      EXPECT_NE(s.reason.find("NCCL cannot be loaded"), std::string::npos) << s.reason;
    }
  }
}

TEST(HarnessFailures, AWrongResultKeepsTheFabric) {
  FaultyRun run(FakeFabric::Fault::none, /*absent_rank=*/1);  // its peer times out, or its output stays unwritten
  const CaseResult r = run.h.run(reference_case(2));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(run.log.aborted, 0);
  EXPECT_EQ(run.log.alive, 1) << "a case that failed without hanging leaves its fabric usable";
}

TEST(HarnessFailures, TheHarnessRecordsStartSkewFloorAndDiscardedSamples) {
  const Registry reg = host_registry();
  const RunConfig cfg = quick_config();
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const CaseResult r = h.run(reference_case(4));
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_GE(r.start_skew_us, 0.0);
  EXPECT_GE(r.floor_us, 0.0);
  EXPECT_EQ(r.discarded_samples, 0);
}

// setenv is unsafe while NCCL's threads may read the environment: a fabric created with NCCL
// variables set must find no other communicator-holding fabric alive.
TEST(FabricCacheEnv, AConfiguredFabricIsCreatedWithNoOtherCommunicatorAlive) {
  FabricLog log;
  FabricCache fabrics([&log](Backend, int world, const FabricEnv& env) {
    if (!env.empty()) log.alive_when_env_fabric_created = log.alive;
    return std::make_unique<FakeFabric>(world, log, FakeFabric::Fault::none, true);
  });
  fabrics.get(Backend::host, 2);
  fabrics.get(Backend::host, 4);
  Fabric& configured = fabrics.get(Backend::host, 2, {{"NCCL_PROTO", "LL"}});
  EXPECT_EQ(log.alive_when_env_fabric_created, 0);
  EXPECT_EQ(&fabrics.get(Backend::host, 2, {{"NCCL_PROTO", "LL"}}), &configured) << "kept once created";
  fabrics.get(Backend::host, 2);  // re-created on demand, beside the configured one
  EXPECT_EQ(log.alive, 2);
  EXPECT_EQ(fabrics.created().size(), 4u);
}

TEST(NcclProtocolPolicy, Ll128OverPcieOnlyWhenAskedFor) {
  const std::map<std::string, std::string> ll128 = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL128"}};
  const std::string why = nccl_protocol_refusal(ll128, /*all_nvlink=*/false, /*allowed=*/false);
  EXPECT_NE(why.find("--allow-ll128-pcie"), std::string::npos) << why;
  EXPECT_NE(why.find("NVLink"), std::string::npos) << why;
  EXPECT_EQ(nccl_protocol_refusal(ll128, true, false), "") << "NVLink: 128-byte stores arrive whole";
  EXPECT_EQ(nccl_protocol_refusal(ll128, false, true), "") << "the user asked for it";
  EXPECT_EQ(nccl_protocol_refusal({{"NCCL_PROTO", "LL"}}, false, false), "");
  EXPECT_EQ(nccl_protocol_refusal({}, false, false), "");
}

// NCCL_PROTO's own grammar: "^LL" means every protocol but LL, so it enables LL128 (before, only
// a value naming "ll128" was refused).
TEST(NcclProtocolPolicy, TheGrammarOfNcclProto) {
  EXPECT_TRUE(nccl_proto_enables_ll128("LL128"));
  EXPECT_TRUE(nccl_proto_enables_ll128("^LL"));
  EXPECT_TRUE(nccl_proto_enables_ll128("simple,ll128"));
  EXPECT_TRUE(nccl_proto_enables_ll128("^LL128;allreduce:LL128"));
  EXPECT_FALSE(nccl_proto_enables_ll128("^LL128"));
  EXPECT_FALSE(nccl_proto_enables_ll128("LL,Simple"));
  EXPECT_FALSE(nccl_proto_enables_ll128("LL128;allreduce:^LL128"));
  EXPECT_FALSE(nccl_proto_enables_ll128("broadcast:LL128")) << "no entry for all-reduces: NCCL's own choice";
  const std::string why = nccl_protocol_refusal({{"NCCL_PROTO", "^LL"}}, false, false, /*inherited=*/true);
  EXPECT_NE(why.find("NCCL_PROTO=^LL (inherited from the environment)"), std::string::npos) << why;
  EXPECT_NE(why.find("unset NCCL_PROTO"), std::string::npos) << why;
}

// An inherited NCCL_PROTO that enables LL128 over PCIe is refused for every NCCL case, like a
// forced configuration; a forced NCCL_PROTO overrides the inherited one.
TEST(NcclProtocolPolicy, PlanRefusesAnInheritedProtoThatEnablesLl128) {
  class NcclLike final : public IdleVariant {
   public:
    explicit NcclLike(std::map<std::string, std::string> env) : env_(std::move(env)) {}
    DataMover data_mover() const override { return DataMover::nccl; }
    std::map<std::string, std::string> fabric_env() const override { return env_; }

   private:
    std::map<std::string, std::string> env_;
  };
  Registry reg;
  reg.add(reference_entry());
  for (auto [name, env] : std::vector<std::pair<std::string, std::map<std::string, std::string>>>{
           {"nccl-like", {}}, {"forced-ll", {{"NCCL_PROTO", "LL"}}}}) {
    VariantEntry e;
    e.name = name;
    e.host = [env] { return std::make_unique<NcclLike>(env); };
    reg.add(e);
  }
  RunConfig cfg = quick_config();
  cfg.inherited_nccl_env = {{"NCCL_PROTO", "^LL"}};
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const Support inherited = h.plan(Case{"nccl-like", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false});
  EXPECT_FALSE(inherited.ok);
  EXPECT_NE(inherited.reason.find("inherited"), std::string::npos) << inherited.reason;
  EXPECT_TRUE(h.plan(Case{"forced-ll", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false}).ok)
      << "a forced NCCL_PROTO=LL replaces the inherited value";
  EXPECT_TRUE(h.plan(reference_case(2)).ok) << "not an NCCL variant: NCCL_PROTO does not concern it";
}

TEST(NcclProtocolPolicy, PlanSkipsAForcedLl128Configuration) {
  class Ll128Like final : public IdleVariant {
   public:
    std::map<std::string, std::string> fabric_env() const override { return {{"NCCL_PROTO", "LL128"}}; }
  };
  const Registry reg = one_host_variant("ll128-like", [] { return std::make_unique<Ll128Like>(); });
  RunConfig cfg = quick_config();
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world); });
  const Case c{"ll128-like", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false};
  {
    Harness h(cfg, Backend::host, reg, fabrics);
    EXPECT_FALSE(h.plan(c).ok);
  }
  cfg.all_nvlink[2] = true;
  {
    Harness h(cfg, Backend::host, reg, fabrics);
    EXPECT_TRUE(h.plan(c).ok);
  }
  cfg.all_nvlink.clear();
  cfg.allow_ll128_pcie = true;
  Harness h(cfg, Backend::host, reg, fabrics);
  EXPECT_TRUE(h.plan(c).ok);
}

TEST(RunConfigGuards, ADisplayWatchdogCapsTheTimeout) {
  const TimeoutCap none = cap_timeout_for_watchdog(10.0, {});
  EXPECT_EQ(none.timeout_s, 10.0);
  EXPECT_EQ(none.warning, "");
  const TimeoutCap capped = cap_timeout_for_watchdog(10.0, {0, 3});
  EXPECT_EQ(capped.timeout_s, kWatchdogTimeoutCap);
  EXPECT_NE(capped.warning.find("GPU 0,3"), std::string::npos) << capped.warning;
  EXPECT_NE(capped.warning.find("watchdog"), std::string::npos) << capped.warning;
  EXPECT_EQ(cap_timeout_for_watchdog(0.5, {0}).timeout_s, 0.5) << "already below the cap";
}

TEST(RunConfigGuards, TheAbsentRankSwitchIsValidated) {
  EXPECT_EQ(parse_absent_rank(nullptr), -1);
  EXPECT_EQ(parse_absent_rank(""), -1);
  EXPECT_EQ(parse_absent_rank("3"), 3);
  EXPECT_THROW(parse_absent_rank("8"), UsageError);
  EXPECT_THROW(parse_absent_rank("x"), UsageError);
  EXPECT_THROW(parse_absent_rank("-1"), UsageError);
}

}  // namespace
}  // namespace arbench
