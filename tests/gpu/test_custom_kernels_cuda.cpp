// Every custom variant on the cuda backend (one rank per GPU, NCCL symmetric windows, the
// device-barrier start gate) at every world size the box has, 2 .. all GPUs (odd ones too),
// through the harness: eager ops (warm-up, isolated samples) checked, CUDA-graph replays (the
// pipelined regime) checked after, in-place too. Every case is bounded (--timeout 5 s: a lost
// peer fails the case, it cannot hang the test) and its wall time is asserted. Also a rank that
// never arrives in an NCCL all-reduce: the case fails, its communicators are aborted, and the
// next case runs on a fresh fabric. Skips below 2 GPUs or without NCCL; skips a case only when
// CUDA reports a pair of its GPUs without P2P, and fails on any other reason not to run it.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "gpu_cases.hpp"
#include "gpu_test_util.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "measure/fabric_factory.hpp"
#include "measure/harness.hpp"

using namespace arbench;
using arbench::testing::quick_gpu_config;
using arbench::testing::usable_gpus;

TEST(CustomKernelsCuda, EveryVariantAtEveryWorldSizeEagerAndGraph) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  const RunConfig cfg = quick_gpu_config();
  const auto can_access = arbench::testing::peer_access_matrix(usable_gpus());
  int ran = 0;
  std::vector<std::string> skipped;
  for (int world = 2; world <= usable_gpus(); ++world) {
    FabricCache fabrics = arbench::testing::gpu_fabrics();
    Harness h(cfg, Backend::cuda, Registry::builtin(), fabrics);
    const std::vector<std::string> fused = {"unfused-oneshot", "unfused-nccl", "fused-oneshot", "fused-twoshot"};
    for (const Case& c : arbench::testing::gpu_cases(world, arbench::testing::kCustomAllreduce, fused)) {
      const Support s = h.plan(c);
      if (!s.ok) {
        // Skip this case only when CUDA says a pair of its GPUs has no P2P; any other reason is a
        // failure the test must not hide (gpu_test_util.hpp verified_p2p_skip).
        const std::string evidence = arbench::testing::verified_p2p_skip(can_access, world);
        if (evidence.empty())
          ADD_FAILURE() << c.name() << " did not run although every GPU pair reports P2P: " << s.reason;
        else
          skipped.push_back(c.name() + " (" + evidence + ")");
        continue;
      }
      ++ran;
      arbench::testing::run_checked(h, c);
      ASSERT_EQ(h.stop_reason(), "") << c.name();
    }
  }
  for (const std::string& k : skipped) std::cout << "[ SKIP ] " << k << "\n";
  if (ran == 0 && !HasFailure()) GTEST_SKIP() << "no GPU pair has P2P: " << skipped.front();
}

TEST(CustomKernelsCuda, StartGateReportsSkewAndFloor) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  const RunConfig cfg = quick_gpu_config();
  FabricCache fabrics = arbench::testing::gpu_fabrics();
  Harness h(cfg, Backend::cuda, Registry::builtin(), fabrics);
  const int world = usable_gpus();
  const CaseResult r = h.run(Case{"nccl", Family::allreduce, DType::bf16, world, 1024, 0, 0, false});
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_GT(r.floor_us, 0.0);
  EXPECT_GE(r.start_skew_us, 0.0) << "the GPU clock offsets could not be measured";
  EXPECT_EQ(r.discarded_samples, 0);
  ASSERT_TRUE(r.clock_sync.has_value());
  EXPECT_GE(r.clock_sync->error_bound_us, 0.0);
  EXPECT_NE(r.clock_sync->method.find("ping-pong"), std::string::npos) << r.clock_sync->method;
  // The gate's residual bias is what the skew measures: two rounds leave the pairs' latency
  // differences, far below one PCIe write (~1 us), plus the offsets' error.
  if (fabrics.created().front().find("device barrier") != std::string::npos) {
    EXPECT_LT(r.start_skew_us, 1.0 + 2 * r.clock_sync->error_bound_us) << r.clock_sync->method;
  }
  std::cout << "[ GATE ] " << world << " GPUs, " << fabrics.created().front() << ": start skew " << r.start_skew_us
            << " us (median), floor " << r.floor_us << " us, clocks " << r.clock_sync->method << " +-"
            << r.clock_sync->error_bound_us << " us\n";
}

TEST(CustomKernelsCuda, ANeverArrivingRankIsAbortedAndTheRunGoesOn) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  RunConfig healthy = quick_gpu_config();
  healthy.timeout_s = 1.0;
  RunConfig broken = healthy;
  broken.test_absent_rank = 1;
  FabricCache fabrics = arbench::testing::gpu_fabrics(1.0);
  const Case c{"nccl", Family::allreduce, DType::bf16, 2, 1 << 16, 0, 0, false};
  // A healthy case first: NCCL connects its peers at the first collective, on the host thread,
  // and that handshake (unlike a kernel) has no bound to catch a missing rank.
  EXPECT_TRUE(Harness(healthy, Backend::cuda, Registry::builtin(), fabrics).run(c).ok);
  const auto t0 = std::chrono::steady_clock::now();
  {
    Harness h(broken, Backend::cuda, Registry::builtin(), fabrics);
    const CaseResult r = h.run(c);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.reason.find(c.name() + " did not finish"), std::string::npos) << r.reason;
    EXPECT_EQ(h.stop_reason(), "") << "ncclCommAbort must leave the devices usable";
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
  Harness h(healthy, Backend::cuda, Registry::builtin(), fabrics);
  const CaseResult next = h.run(c);
  EXPECT_TRUE(next.ok) << next.reason;
  EXPECT_EQ(fabrics.created().size(), 2u) << "the aborted fabric is replaced";
}
