// The up-front memory check of the host backend (bench/sweep/memory_check.hpp): a sweep whose
// largest case cannot fit is refused with the amounts, before any case runs; and the estimate
// (Harness::memory_bytes) follows what the workload and the variant's prepare() allocate.
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "measure/harness.hpp"
#include "sweep/memory_check.hpp"
#include "sweep/sizes.hpp"

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
  try {
    check_memory_fits(cases, need, std::size_t(20) << 30);
    ADD_FAILURE() << "no error";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("2 of 3 cases do not fit in memory"), std::string::npos) << m;
    EXPECT_NE(m.find("allreduce/ring/bf16/gpus:8/bytes:68719476736"), std::string::npos) << m;
    EXPECT_NE(m.find("needs about 1.5 TiB"), std::string::npos) << m;
    EXPECT_NE(m.find("20.0 GiB is available"), std::string::npos) << m;
    EXPECT_NE(m.find("lower --max-bytes"), std::string::npos) << m;
  }
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
