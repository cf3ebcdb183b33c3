// The ring kernel on single_gpu (2, 4 and 8 virtual ranks on GPU 0) through the harness: eager
// ops (warm-up, isolated samples) and CUDA-graph replays (the pipelined regime), each followed
// by the bitwise check; policy defaults and forced channels/chunks; a custom ring order.
// Skips with a reason without a device.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "measure/harness.hpp"
#include "measure/fabric_factory.hpp"
#include "gpu_cases.hpp"
#include "gpu_test_util.hpp"

using namespace arbench;

namespace {

CaseResult run_ring(int world, DType t, std::size_t bytes, const Tuning& tuning, bool in_place = false) {
  RunConfig cfg;
  cfg.warmup = 2;
  cfg.samples = 5;
  cfg.pipelined_ops = 6;  // one CUDA graph of 6 ops, replayed: counters must continue in memory
  cfg.tuning = tuning;
  FabricCache fabrics = arbench::testing::gpu_fabrics(10.0);
  Harness h(cfg, Backend::single_gpu, Registry::builtin(), fabrics);
  Case c{"ring", Family::allreduce, t, world, bytes, 0, 0, in_place};
  Support s = h.plan(c);
  EXPECT_TRUE(s.ok) << s.reason;
  return h.run(c);
}

std::map<std::string, std::string> settings_of(const CaseResult& r) {
  return std::map<std::string, std::string>(r.settings.begin(), r.settings.end());
}

}  // namespace

// The harness checks the output of the last graph replay (fresh inputs and poisoned outputs
// before the replays) and then one eager op on fresh inputs, so replays that write nothing, or
// counters that drift inside the graphs, fail the case (tests/host/measure/test_harness_checks.cpp
// shows both being caught on the host fabric).
TEST(RingGpu, SingleGpuEagerAndGraphReplayAreExact) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {2, 4, 8})
    for (DType t : kAllDTypes)
      // Largest 1 MB + a tail, so the suite fits the device-check time box.
      for (std::size_t bytes : {std::size_t(1024), std::size_t(1000 * 4 + 6), std::size_t(1 << 20) + 16}) {
        CaseResult r = run_ring(world, t, bytes, Tuning{});
        EXPECT_TRUE(r.ok) << r.c.name() << ": " << r.reason;
        EXPECT_TRUE(r.checked) << r.c.name();
        EXPECT_EQ(r.wrong_elements, 0u) << r.c.name();
        EXPECT_GT(r.pipelined_us, 0.0) << r.c.name();
      }
}

TEST(RingGpu, ForcedChannelsChunksOrderAndInPlace) {
  ARB_REQUIRE_GPUS(1);
  Tuning t;
  t.ring_channels = 3;
  t.ring_chunk = 4096;
  for (int world : {2, 4, 8}) {
    CaseResult r = run_ring(world, DType::bf16, (1 << 20) + 2, t);
    EXPECT_TRUE(r.ok) << r.c.name() << ": " << r.reason;
    auto s = settings_of(r);  // the policy alone would pick other values at 1 MB
    EXPECT_EQ(s["ring_channels"], "3") << r.c.name();
    EXPECT_EQ(s["ring_chunk"], "4096") << r.c.name();
  }
  Tuning o;
  o.ring_order = {0, 2, 3, 1};
  o.ring_chunk = 16;  // one pack per transfer: many slot/credit wraps per op
  CaseResult r = run_ring(4, DType::fp16, 64 * 1024 + 2, o, /*in_place=*/true);
  EXPECT_TRUE(r.ok) << r.c.name() << ": " << r.reason;
  auto s = settings_of(r);
  EXPECT_EQ(s["ring_order"], "0,2,3,1");
  EXPECT_EQ(s["ring_order_source"], "--ring-order");
  EXPECT_EQ(s["ring_chunk"], "16");
}
