// The copy-engine variants (ce-twoshot, ce-ring, ce-island on two halves) on single_gpu (2, 4 and 8 virtual ranks on GPU
// 0) through the harness: eager ops (warm-up, isolated samples) and CUDA-graph replays (the
// pipelined regime: the stream memory operations and copies captured, their flags back to 0 at
// the end of every op), each followed by the bitwise check; the policy's chunks and the
// configurations (chunk, copy streams, slots); a custom ring order. Skips without a device.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/gpu/gpu_cases.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "measure/fabric_factory.hpp"
#include "islands/island_spec.hpp"
#include "measure/harness.hpp"

using namespace arbench;

namespace {

CaseResult run_ce(const std::string& variant, int world, DType t, std::size_t bytes, const Tuning& tuning = {},
                  bool in_place = false) {
  RunConfig cfg;
  cfg.warmup = 2;
  cfg.samples = 5;
  cfg.pipelined_ops = 6;  // one CUDA graph of 6 ops, replayed: every flag must count from 0 again
  cfg.tuning = tuning;
  FabricCache fabrics = arbench::testing::gpu_fabrics(10.0);
  Harness h(cfg, Backend::single_gpu, Registry::builtin(), fabrics);
  Case c{variant, Family::allreduce, t, world, bytes, 0, 0, in_place};
  Support s = h.plan(c);
  EXPECT_TRUE(s.ok) << variant << ": " << s.reason;
  return h.run(c);
}

void expect_exact(const CaseResult& r) {
  EXPECT_TRUE(r.ok) << r.c.name() << ": " << r.reason;
  EXPECT_TRUE(r.checked) << r.c.name();
  EXPECT_EQ(r.wrong_elements, 0u) << r.c.name();
  EXPECT_GT(r.pipelined_us, 0.0) << r.c.name();
}

}  // namespace

TEST(CeGpu, SingleGpuEagerAndGraphReplayAreExact) {
  ARB_REQUIRE_GPUS(1);
  for (const char* v : {"ce-twoshot", "ce-ring"})
    for (int world : {2, 4, 8})
      for (DType t : kAllDTypes)
        for (std::size_t bytes : {std::size_t(1024), std::size_t(1000 * 4 + 6), std::size_t(4 << 20) + 16})
          expect_exact(run_ce(v, world, t, bytes));
}

// ce-island on two islands of equal size (the halves), as the island variants are tested.
TEST(CeGpu, IslandOnTwoHalvesEagerAndGraphReplayAreExact) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {4, 8}) {
    Tuning t;
    t.islands = islands::halves({world});
    for (DType d : kAllDTypes)
      for (std::size_t bytes : {std::size_t(1024), std::size_t(1000 * 4 + 6), std::size_t(4 << 20) + 16})
        expect_exact(run_ce("ce-island", world, d, bytes, t));
  }
}

TEST(CeGpu, ConfigurationsOrderAndInPlace) {
  ARB_REQUIRE_GPUS(1);
  for (const char* v : {"ce-twoshot[chunk:256K/streams:2]", "ce-ring[chunk:64K/streams:3/slots:1]"}) {
    const CaseResult r = run_ce(v, 4, DType::bf16, (3 << 20) + 2);
    expect_exact(r);
    const std::map<std::string, std::string> s(r.settings.begin(), r.settings.end());
    EXPECT_NE(s.at("ce_copy_streams"), "1") << v;  // the configuration, not the policy
  }
  Tuning o;
  o.ring_order = {0, 2, 3, 1};
  const CaseResult r = run_ce("ce-ring", 4, DType::fp16, 64 * 1024 + 2, o, /*in_place=*/true);
  expect_exact(r);
  const std::map<std::string, std::string> s(r.settings.begin(), r.settings.end());
  EXPECT_EQ(s.at("ring_order"), "0,2,3,1");
}
