// Every custom kernel on both symmetric-memory providers (docs/variants.md, "Symmetric memory:
// two providers"), at every world size the box has (1 .. all GPUs, odd ones too), through the
// harness: eager ops checked, CUDA-graph replays (the pipelined regime) checked, in-place too.
//   cuda  PeerFabric: arbench's own peer mappings (cuMemCreate/cuMemMap/cuMemSetAccess), no NCCL;
//         the arena is reserved for the largest case first and must not grow after.
//   nccl  NcclFabric: NCCL's symmetric windows; skipped (with the reason) without NCCL.
// Every case is bounded (--timeout 5 s) and its wall time asserted. Skips without a GPU; a pair
// of GPUs the cuda provider cannot map skips that world size with the pair named.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu_cases.hpp"
#include "gpu_test_util.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_fabric.hpp"
#include "kernels/fabric/peer/peer_fabric.hpp"
#include "measure/harness.hpp"
#include "measure/symm_footprint.hpp"

using namespace arbench;
using arbench::testing::kGpuCaseTimeout;
using arbench::testing::usable_gpus;

namespace {

// Runs every custom case of `world` on fabrics `make` creates; the arena (when `arena_of` gives
// one) is reserved for the largest case first and must not grow.
template <class Make>
void run_every_custom_case(int world, const char* provider, Make make) {
  const RunConfig cfg = arbench::testing::quick_gpu_config();
  Fabric* fabric = nullptr;
  FabricCache fabrics([&](Backend, int w, const FabricEnv&) {
    auto f = make(w);
    fabric = f.get();
    return f;
  });
  Harness h(cfg, Backend::cuda, Registry::builtin(), fabrics);
  std::vector<Case> runnable;
  std::size_t largest = 0;
  const std::vector<std::string> fused = {"unfused-oneshot", "fused-oneshot", "fused-twoshot"};
  for (const Case& c : arbench::testing::gpu_cases(world, arbench::testing::kCustomAllreduce, fused)) {
    const Support s = h.plan(c);
    if (!s.ok) {
      GTEST_SKIP() << provider << " provider, " << world << " GPUs: " << c.name() << ": " << s.reason;
    }
    auto v = Registry::builtin().make(c.variant, Backend::cuda);
    largest = std::max(largest, symmetric_bytes_per_rank(c, *v, *fabric, cfg.tuning));
    runnable.push_back(c);
  }
  fabric->reserve_symmetric(largest);
  auto* peer = dynamic_cast<PeerFabric*>(fabric);
  const std::size_t chunks = peer != nullptr ? peer->arena()->chunks() : 0;
  for (const Case& c : runnable) arbench::testing::run_checked(h, c, provider);
  if (peer != nullptr) {
    EXPECT_EQ(peer->arena()->chunks(), chunks) << "the cuda arena grew: a case did not fit the reserved largest case";
  }
}

}  // namespace

TEST(SymmProvidersGpu, EveryCustomVariantOnTheCudaProviderAtEveryWorldSize) {
  ARB_REQUIRE_GPUS(1);
  for (int world = 1; world <= usable_gpus(); ++world)
    run_every_custom_case(world, "cuda", [](int w) { return std::make_unique<PeerFabric>(w, kGpuCaseTimeout); });
}

TEST(SymmProvidersGpu, EveryCustomVariantOnTheNcclProviderAtEveryWorldSize) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  for (int world = 1; world <= usable_gpus(); ++world)
    run_every_custom_case(world, "nccl", [](int w) { return std::make_unique<NcclFabric>(w, kGpuCaseTimeout); });
}

// The cuda provider's peer pointers reach the peer's memory: rank p fills its slice with p, and
// every rank copies every peer's slice back through its own peer pointer.
TEST(SymmProvidersGpu, TheCudaProvidersPeerPointersReachThePeersMemory) {
  ARB_REQUIRE_GPUS(2);
  const int world = usable_gpus();
  PeerFabric f(world, kGpuCaseTimeout);
  if (!f.symmetric_unsupported_reason().empty()) GTEST_SKIP() << f.symmetric_unsupported_reason();
  auto b = f.alloc(4096, Placement::symmetric);
  for (int r = 0; r < world; ++r) {
    std::vector<unsigned char> fill(4096, static_cast<unsigned char>(0x40 + r));
    f.upload(r, b->local(r), fill.data(), fill.size());
  }
  for (int r = 0; r < world; ++r)
    for (int p = 0; p < world; ++p) {
      unsigned char got[4096] = {};
      f.download(r, got, b->peer(r, p), sizeof got);  // on rank r's stream: r's GPU reads p's memory
      EXPECT_EQ(got[0], 0x40 + p) << "rank " << r << " reading " << p;
      EXPECT_EQ(got[4095], 0x40 + p) << "rank " << r << " reading " << p;
    }
  EXPECT_NE(f.describe().find("cuda provider"), std::string::npos) << f.describe();
}
