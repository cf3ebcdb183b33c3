// The island variants on real GPUs: island-oneshot, island-twoshot, fused-island-oneshot and
// fused-island-twoshot
// through the harness (eager ops and CUDA-graph replays checked), on the cuda backend at every
// world size from 2 to all GPUs with the GPUs cut into two halves, over both cross-island paths
// (P2P where the box has it, and `[host-memory]`: pinned host memory mapped into both GPUs), and
// on single-gpu with 4 and 8 virtual ranks; plus the islands `arbench run` derives from this box's
// PCIe tree. Skips without GPUs (and, for the cuda backend, without NCCL: the fabric needs it).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "islands/island_spec.hpp"
#include "measure/fabric_factory.hpp"
#include "measure/harness.hpp"
#include "run/run_links.hpp"
#include "workload/rmsnorm_reference.hpp"

using namespace arbench;

namespace {

constexpr double kTimeout = 5.0;

int gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
  return n;
}

std::vector<Case> island_cases(int world, bool host_memory) {
  const std::string tail = host_memory ? "[host-memory]" : "";
  std::vector<Case> out;
  for (const std::string v : {"island-oneshot", "island-twoshot"}) {
    for (std::size_t bytes : {std::size_t(1024), std::size_t(65536 + 6), std::size_t(1 << 20)})
      out.push_back(Case{v + tail, Family::allreduce, DType::bf16, world, bytes, 0, 0, false});
    out.push_back(Case{v + tail, Family::allreduce, DType::fp16, world, 4096 * 2 + 2, 0, 0, true});
    out.push_back(Case{v + tail, Family::allreduce, DType::fp32, world, 4000 * 4, 0, 0, false});
  }
  for (const std::string v : {"fused-island-oneshot", "fused-island-twoshot"})
    for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{1, 8192}, {5, 1001}, {16, 4096}})
      out.push_back(Case{v + tail, Family::allreduce_rmsnorm, DType::bf16, world,
                         std::size_t(tokens) * std::size_t(hidden) * 2, tokens, hidden, false});
  return out;
}

void run_all(Backend b, int world, bool host_memory) {
  RunConfig cfg;
  cfg.warmup = 2;
  cfg.samples = 5;
  cfg.pipelined_ops = 4;
  cfg.timeout_s = kTimeout;
  cfg.tuning.islands = islands::halves({world});
  FabricCache fabrics([](Backend bk, int w, const FabricEnv& env) { return make_fabric(bk, w, env, kTimeout); });
  Harness h(cfg, b, Registry::builtin(), fabrics);
  for (const Case& c : island_cases(world, host_memory)) {
    const Support s = h.plan(c);
    if (!s.ok) {  // e.g. no P2P inside a half: the island variants skip, with the reason
      std::printf("skipped %s: %s\n", c.name().c_str(), s.reason.c_str());
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const CaseResult r = h.run(c);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(r.ok) << c.name() << ": " << r.reason;
    EXPECT_EQ(r.wrong_elements, 0u) << c.name();
    if (c.family == Family::allreduce_rmsnorm) {
      EXPECT_LE(r.max_ulp_error, rmsnorm_tolerance_ulp(c.dtype)) << c.name();
    }
    EXPECT_GT(r.pipelined_us, 0.0) << c.name() << ": no graph replay measured";
    EXPECT_LT(took, 60.0) << c.name();
    for (const auto& [k, v] : r.settings) {
      if (k == "cross_path" && host_memory) {
        EXPECT_EQ(v, "host-memory") << c.name();
      }
    }
  }
}

}  // namespace

TEST(IslandGpu, CudaEveryWorldSizeBothPaths) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  for (int world = 2; world <= std::min(gpu_count(), kMaxRanks); ++world)
    for (bool host_memory : {false, true}) run_all(Backend::cuda, world, host_memory);
}

TEST(IslandGpu, SingleGpuVirtualRanksBothPaths) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {4, 8})
    for (bool host_memory : {false, true}) run_all(Backend::single_gpu, world, host_memory);
}

// The islands of this box as `arbench run` derives them: every world size gets islands (or the
// reason is in the topology), and each island's GPUs reach each other (an island needs P2P).
TEST(IslandGpu, IslandsOfThisBox) {
  ARB_REQUIRE_GPUS(1);
  RunConfig cfg;
  cfg.link_probe = false;
  const RunLinks links(cfg, Backend::cuda);
  std::vector<int> worlds;
  for (int w = 1; w <= std::min(gpu_count(), kMaxRanks); ++w) worlds.push_back(w);
  for (const auto& [w, labels] : links.islands(worlds)) {
    ASSERT_EQ(static_cast<int>(labels.size()), w);
    for (int a = 0; a < w; ++a)
      for (int b = 0; b < w; ++b) {
        int ok = 1;
        if (a != b && labels[a] == labels[b] && cudaDeviceCanAccessPeer(&ok, a, b) == cudaSuccess) {
          EXPECT_EQ(ok, 1) << "GPUs " << a << " and " << b << " share an island without P2P";
        }
      }
  }
}
