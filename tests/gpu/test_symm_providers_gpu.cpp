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
#include <chrono>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_fabric.hpp"
#include "kernels/fabric/peer/peer_fabric.hpp"
#include "measure/harness.hpp"
#include "measure/symm_footprint.hpp"
#include "workload/rmsnorm_reference.hpp"

using namespace arbench;

namespace {

constexpr double kTimeout = 5.0;
constexpr double kCaseBound = 60.0;  // seconds: generous, but finite, for any one case

int gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  return n;
}

RunConfig quick_config() {
  RunConfig cfg;
  cfg.warmup = 2;
  cfg.samples = 5;
  cfg.pipelined_ops = 4;  // one CUDA graph of 4 ops per rank, replayed
  cfg.timeout_s = kTimeout;
  return cfg;
}

std::vector<Case> custom_cases(int world) {
  std::vector<Case> out;
  for (const char* v : {"oneshot-pull", "oneshot-push", "twoshot", "ring"}) {
    for (std::size_t bytes : {std::size_t(1024), std::size_t(65536 + 6), std::size_t(1 << 20)})
      out.push_back(Case{v, Family::allreduce, DType::bf16, world, bytes, 0, 0, false});
    out.push_back(Case{v, Family::allreduce, DType::fp16, world, 4096 * 2 + 2, 0, 0, true});
    out.push_back(Case{v, Family::allreduce, DType::fp32, world, 4000 * 4, 0, 0, false});
  }
  for (const char* v : {"unfused-oneshot", "fused-oneshot", "fused-twoshot"})
    for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{1, 8192}, {5, 1001}, {16, 4096}})
      out.push_back(Case{v, Family::allreduce_rmsnorm, DType::bf16, world,
                         std::size_t(tokens) * std::size_t(hidden) * 2, tokens, hidden, false});
  return out;
}

// Runs every custom case of `world` on fabrics `make` creates; the arena (when `arena_of` gives
// one) is reserved for the largest case first and must not grow.
template <class Make>
void run_every_custom_case(int world, const char* provider, Make make) {
  const RunConfig cfg = quick_config();
  Fabric* fabric = nullptr;
  FabricCache fabrics([&](Backend, int w, const FabricEnv&) {
    auto f = make(w);
    fabric = f.get();
    return f;
  });
  Harness h(cfg, Backend::cuda, Registry::builtin(), fabrics);
  std::vector<Case> runnable;
  std::size_t largest = 0;
  for (const Case& c : custom_cases(world)) {
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
  for (const Case& c : runnable) {
    const auto t0 = std::chrono::steady_clock::now();
    const CaseResult r = h.run(c);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(r.ok) << provider << ": " << c.name() << ": " << r.reason;
    EXPECT_EQ(r.wrong_elements, 0u) << provider << ": " << c.name();
    if (c.family == Family::allreduce_rmsnorm) {
      EXPECT_LE(r.max_ulp_error, rmsnorm_tolerance_ulp(c.dtype)) << provider << ": " << c.name();
    }
    EXPECT_GT(r.pipelined_us, 0.0) << provider << ": " << c.name() << ": no graph replay measured";
    EXPECT_LT(took, kCaseBound) << provider << ": " << c.name();
  }
  if (peer != nullptr) {
    EXPECT_EQ(peer->arena()->chunks(), chunks) << "the cuda arena grew: a case did not fit the reserved largest case";
  }
}

}  // namespace

TEST(SymmProvidersGpu, EveryCustomVariantOnTheCudaProviderAtEveryWorldSize) {
  ARB_REQUIRE_GPUS(1);
  for (int world = 1; world <= std::min(gpu_count(), kMaxRanks); ++world)
    run_every_custom_case(world, "cuda", [](int w) { return std::make_unique<PeerFabric>(w, kTimeout); });
}

TEST(SymmProvidersGpu, EveryCustomVariantOnTheNcclProviderAtEveryWorldSize) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  for (int world = 1; world <= std::min(gpu_count(), kMaxRanks); ++world)
    run_every_custom_case(world, "nccl", [](int w) { return std::make_unique<NcclFabric>(w, kTimeout); });
}

// The cuda provider's peer pointers reach the peer's memory: rank p fills its slice with p, and
// every rank copies every peer's slice back through its own peer pointer.
TEST(SymmProvidersGpu, TheCudaProvidersPeerPointersReachThePeersMemory) {
  ARB_REQUIRE_GPUS(2);
  const int world = std::min(gpu_count(), kMaxRanks);
  PeerFabric f(world, kTimeout);
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
