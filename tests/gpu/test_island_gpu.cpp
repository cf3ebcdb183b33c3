// The island variants on real GPUs: island-oneshot, island-twoshot, fused-island-oneshot and
// fused-island-twoshot
// through the harness (eager ops and CUDA-graph replays checked), on the cuda backend at every
// world size from 2 to all GPUs with the GPUs cut into two halves, over both cross-island paths
// (P2P where the box has it, and `[host-memory]`: pinned host memory mapped into both GPUs), and
// on single-gpu with 4 and 8 virtual ranks; plus the islands `arbench run` derives from this box's
// PCIe tree. Skips without GPUs (and, for the cuda backend, without NCCL: the fabric needs it).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gpu_cases.hpp"
#include "gpu_test_util.hpp"
#include "islands/island_spec.hpp"
#include "measure/fabric_factory.hpp"
#include "measure/harness.hpp"
#include "run/run_links.hpp"

using namespace arbench;
using arbench::testing::kGpuCaseTimeout;
using arbench::testing::usable_gpus;

namespace {

void run_all(Backend b, int world, bool host_memory) {
  RunConfig cfg = arbench::testing::quick_gpu_config();
  cfg.tuning.islands = islands::halves({world});
  FabricCache fabrics([](Backend bk, int w, const FabricEnv& env) { return make_fabric(bk, w, env, kGpuCaseTimeout); });
  Harness h(cfg, b, Registry::builtin(), fabrics);
  const auto cases = arbench::testing::gpu_cases(world, {"island-oneshot", "island-twoshot"},
                                                 {"fused-island-oneshot", "fused-island-twoshot"},
                                                 host_memory ? "[host-memory]" : "");
  for (const Case& c : cases) {
    const Support s = h.plan(c);
    if (!s.ok) {  // e.g. no P2P inside a half: the island variants skip, with the reason
      std::printf("skipped %s: %s\n", c.name().c_str(), s.reason.c_str());
      continue;
    }
    const CaseResult r = arbench::testing::run_checked(h, c);
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
  for (int world = 2; world <= usable_gpus(); ++world)
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
  for (int w = 1; w <= usable_gpus(); ++w) worlds.push_back(w);
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
