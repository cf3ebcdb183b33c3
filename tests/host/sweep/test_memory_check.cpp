// The up-front memory check of the host backend (bench/sweep/memory_check.hpp): a sweep whose
// largest case cannot fit is refused with the amounts, before any case runs; and the estimate
// (Harness::memory_bytes) follows what the workload and the variant's prepare() allocate.
#include <gtest/gtest.h>

#include <map>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "measure/harness.hpp"
#include "sweep/memory_check.hpp"
#include "sweep/sizes.hpp"
#include "tests/host/measure/forwarding_fabric.hpp"
#include "tests/host/text_checks.hpp"
#include "tests/host/thrown.hpp"
#include "workload/workload.hpp"

using namespace arbench;

namespace {

Case ar(const std::string& variant, int world, std::size_t bytes) {
  return Case{variant, Family::allreduce, DType::bf16, world, bytes, 0, 0, false};
}

}  // namespace

TEST(MemoryCheck, RefusesTheSweepNamingTheLargestCaseAndTheAmounts) {
  const std::vector<Case> cases = {ar("ring", 8, 1 << 20), ar("ring", 8, std::size_t(64) << 30),
                                   ar("ring", 2, std::size_t(64) << 30)};
  const auto need = [](const Case& c) { return c.bytes * std::size_t(c.world) * 3; };
  EXPECT_NO_THROW(check_memory_fits({cases[0]}, need, std::size_t(1) << 30));
  if (const auto e = test::thrown<UsageError>([&] { check_memory_fits(cases, need, std::size_t(20) << 30); }))
    test::expect_contains_all(e->what(), {"2 of 3 cases do not fit in memory",
                                          "allreduce/ring/bf16/gpus:8/bytes:68719476736", "needs about 1.5 TiB",
                                          "20.0 GiB is available", "lower --max-bytes"});
  EXPECT_TRUE(available_host_memory().has_value());  // Linux: /proc/meminfo
}

TEST(MemoryCheck, HumanBytes) {
  EXPECT_EQ(human_bytes(512), "512 bytes");
  EXPECT_EQ(human_bytes(1536), "1.5 KiB");
  EXPECT_EQ(human_bytes(double(std::size_t(3) << 30)), "3.0 GiB");
}

// The estimate covers the real allocations: the host fabric's buffers for the workload and the
// variant's scratch. One-shot push lands every peer's data in LL lines, so it needs far more
// than the ring at the same size; both grow with the message.
TEST(MemoryCheck, EstimateFollowsWorkloadAndVariantScratch) {
  RunConfig cfg;
  resolve_defaults(cfg, Backend::host, 0);
  Registry reg;
  register_host_variants(reg);
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world, 5.0); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const std::size_t mb = std::size_t(1) << 20;
  const std::size_t ring = h.memory_bytes(ar("ring", 8, mb)), push = h.memory_bytes(ar("oneshot-push", 8, mb));
  EXPECT_GE(ring, 8 * 2 * mb + 3 * mb);  // in + out on 8 ranks, the oracle and staging copies
  EXPECT_GT(push, 8 * 8 * mb);           // 8 ranks x LL slots of every peer's data
  EXPECT_GT(push, 2 * ring);
  EXPECT_GT(h.memory_bytes(ar("ring", 8, 64 * mb)), 32 * ring);
  const Case fused{"fused-oneshot", Family::allreduce_rmsnorm, DType::bf16, 4, 256 * 8192 * 2, 256, 8192, false};
  EXPECT_GE(h.memory_bytes(fused), 4 * 4 * fused.bytes);  // x, residual, norm_out, residual_out on 4 ranks
}

namespace {

// Counts what a case really allocates on the fabric: every buffer of alloc, alloc_island and
// alloc_host_mapped, on every rank (each call gives each rank `bytes`).
class AllocCountingFabric final : public arbench::testing::ForwardingFabric {
 public:
  using ForwardingFabric::ForwardingFabric;
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement p) override {
    allocated += bytes * std::size_t(world());
    return ForwardingFabric::alloc(bytes, p);
  }
  std::unique_ptr<RankBuffers> alloc_island(std::size_t bytes) override {
    allocated += bytes * std::size_t(world());
    return ForwardingFabric::alloc_island(bytes);
  }
  std::unique_ptr<RankBuffers> alloc_host_mapped(std::size_t bytes) override {
    allocated += bytes * std::size_t(world());
    return ForwardingFabric::alloc_host_mapped(bytes);
  }
  std::size_t allocated = 0;
};

}  // namespace

// The estimate against the bytes a case really allocated on the fabric, for every host variant,
// two world sizes and three message sizes: Harness::memory_bytes is the fabric's part (world x
// (workload per rank + the variant's scratch)) plus the workload's host-side copies, so the fabric's
// part must equal what the counting fabric saw, to the byte. A buffer left out of the estimate (or
// one allocated twice) shows as a difference. Phases are off: the phase record (a few KiB, outside
// the estimate) is not allocated.
TEST(MemoryCheck, EstimateEqualsWhatTheCaseAllocatesOnTheFabric) {
  RunConfig cfg;
  resolve_defaults(cfg, Backend::host, 0);
  cfg.samples = 1;
  cfg.warmup = 1;
  cfg.pipelined_ops = 0;
  cfg.phases = false;
  Registry reg;
  register_host_variants(reg);
  std::map<int, AllocCountingFabric*> by_world;  // the cache keeps one fabric per world size
  FabricCache fabrics([&by_world](Backend, int world, const FabricEnv&) {
    auto f = std::make_unique<AllocCountingFabric>(world, 5.0);
    by_world[world] = f.get();
    return f;
  });
  int compared = 0;
  for (const VariantEntry& e : reg.entries()) {
    for (int world : {2, 4}) {
      for (std::size_t bytes : {std::size_t(4096), std::size_t(64) << 10, std::size_t(256) << 10}) {
        Case c = e.family == Family::allreduce
                     ? ar(e.name, world, bytes)
                     : Case{e.name, Family::allreduce_rmsnorm, DType::bf16, world, bytes, int(bytes / 2 / 1024), 1024, false};
        Harness h(cfg, Backend::host, reg, fabrics);
        if (!h.plan(c).ok) continue;
        const std::size_t estimate = h.memory_bytes(c);
        AllocCountingFabric* fabric = by_world.at(world);
        fabric->allocated = 0;
        const CaseResult r = h.run(c);
        ASSERT_TRUE(r.ok) << c.name() << ": " << r.reason;
        EXPECT_EQ(estimate - workload_footprint(c).host, fabric->allocated) << c.name();
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 60) << "every host variant at 2 world sizes and 3 sizes";
}
