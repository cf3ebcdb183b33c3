// The phase timeline and arrival skew on GPUs (docs/latency-breakdown.md): %globaltimer's
// resolution is measured and positive; every custom kernel and NCCL (marker kernels around the
// collective) record a timeline that is monotonic per rank and adds up to the op's time; a
// skewed case's latency holds the device-side spin and its latency after the last arrival lies
// between 0 and the latency. Skips without a GPU (the custom kernels on one GPU run as virtual
// ranks on the single-gpu backend; NCCL and the cuda backend need 2 GPUs and NCCL).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "gpu_cases.hpp"
#include "gpu_test_util.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "measure/fabric_factory.hpp"
#include "measure/harness.hpp"
#include "tests/host/measure/phase_checks.hpp"

using namespace arbench;

namespace {

constexpr double kTimeout = 5.0;

RunConfig phases_config() {
  RunConfig cfg;
  cfg.warmup = 2;
  cfg.samples = 5;
  cfg.pipelined_ops = 0;
  cfg.timeout_s = kTimeout;
  cfg.phases = true;
  return cfg;
}

FabricCache fabrics() { return arbench::testing::gpu_fabrics(kTimeout); }

void run_and_check(Harness& h, const Case& c) {
  const CaseResult r = h.run(c);
  ASSERT_TRUE(r.ok) << c.name() << ": " << r.reason;
  ASSERT_TRUE(r.phases.has_value()) << c.name();
  EXPECT_EQ(r.phases->clock, "globaltimer");
  arbench::testing::expect_sound_timeline(*r.phases, c.name());
  std::printf("%s: span %.2f us, breakdown %s, %s\n", c.name().c_str(), r.phases->span_us,
              breakdown_text(r.phases->breakdown).c_str(),
              r.phases->clocks_aligned ? "clocks aligned" : "clocks NOT aligned");
}

}  // namespace

TEST(PhasesGpu, GlobaltimerResolutionIsMeasured) {
  ARB_REQUIRE_GPUS(1);
  auto f = make_fabric(Backend::single_gpu, 2, {}, kTimeout);
  const double ns = f->phase_clock_resolution_ns();
  std::printf("%%globaltimer resolution on GPU 0: %.0f ns\n", ns);
  RecordProperty("globaltimer_resolution_ns", std::to_string(ns));
  EXPECT_GT(ns, 0.0) << "the timer never advanced during 100000 reads";
  EXPECT_LT(ns, 1e6) << "a step of a millisecond or more cannot time a microsecond phase";
}

TEST(PhasesGpu, CustomKernelsOnOneGpuRecordASoundTimeline) {
  ARB_REQUIRE_GPUS(1);
  FabricCache cache = fabrics();
  const RunConfig cfg = phases_config();
  Harness h(cfg, Backend::single_gpu, Registry::builtin(), cache);
  for (const char* v : {"oneshot-pull", "oneshot-push", "twoshot", "ring"})
    for (std::size_t bytes : {std::size_t{1024}, std::size_t{1} << 20})
      run_and_check(h, Case{v, Family::allreduce, DType::bf16, 2, bytes});
  for (const char* v : {"fused-oneshot", "fused-twoshot", "unfused-oneshot"})
    run_and_check(h, Case{v, Family::allreduce_rmsnorm, DType::bf16, 2, 16 * 4096 * 2, 16, 4096});
}

TEST(PhasesGpu, EveryRankOfTheCudaBackendIncludingNccl) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  FabricCache cache = fabrics();
  const RunConfig cfg = phases_config();
  Harness h(cfg, Backend::cuda, Registry::builtin(), cache);
  for (const char* v : {"oneshot-pull", "oneshot-push", "twoshot", "ring", "nccl"})
    run_and_check(h, Case{v, Family::allreduce, DType::bf16, 2, 64 << 10});
  run_and_check(h, Case{"unfused-nccl", Family::allreduce_rmsnorm, DType::bf16, 2, 16 * 4096 * 2, 16, 4096});
}

TEST(PhasesGpu, SkewHoldsTheLastRankOnTheDevice) {
  ARB_REQUIRE_GPUS(1);
  FabricCache cache = fabrics();
  RunConfig cfg = phases_config();
  cfg.phases = false;  // a skewed case records its timeline anyway
  Harness h(cfg, Backend::single_gpu, Registry::builtin(), cache);
  for (const char* v : {"oneshot-push", "oneshot-pull"}) {
    Case c{v, Family::allreduce, DType::bf16, 2, 4096};
    c.skew_us = 20;
    const CaseResult r = h.run(c);
    ASSERT_TRUE(r.ok) << c.name() << ": " << r.reason;
    ASSERT_TRUE(r.phases.has_value());
    arbench::testing::expect_sound_timeline(*r.phases, c.name());
    EXPECT_GE(r.latency_us.min, 20.0) << "rank 1 spins 20 us on its stream inside every sample";
    // One GPU, one clock: rank 1 enters about 20 us after rank 0 (the gate releases the two
    // ranks' streams a few µs apart at most).
    EXPECT_GE(r.phases->breakdown.entry_skew, 10.0) << "rank 1 was not held back";
    EXPECT_LE(r.phases->after_last_arrival_us, r.phases->latency_us);
  }
}
