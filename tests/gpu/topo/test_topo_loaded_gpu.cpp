// Loaded links on real GPUs (`arbench topo --loaded`): one GPU is reported as skipped; with two
// or more, every pattern measures every link, the per-GPU and aggregate figures are positive and
// consistent, and the latency under load is measured or its cell says why. Skips without a device.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/gpu/gpu_test_util.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/gpu/probe.hpp"

namespace arbench::topo {
namespace {

// 8 MiB x 10 copies per pattern, 100 round trips for the latency under load.
ProbeOptions small() { return ProbeOptions{.bytes = 8 << 20, .repetitions = 10, .latency_rounds = 100}; }

TEST(TopoLoadedGpu, OneGpuIsSkippedWithTheReason) {
  ARB_REQUIRE_GPUS(1);
  auto gpus = list_cuda_gpus();
  gpus.resize(1);
  const LoadedLinks l = run_loaded_probes(gpus, small());
  ASSERT_TRUE(l.skipped);
  EXPECT_NE(l.skipped->find("fewer than 2 GPUs"), std::string::npos);
}

TEST(TopoLoadedGpu, EveryPatternLoadsEveryLink) {
  ARB_REQUIRE_GPUS(2);
  const auto gpus = list_cuda_gpus();
  const std::size_t n = gpus.size();
  const ProbeOptions opt = small();
  const LoadedLinks l = run_loaded_probes(gpus, opt);
  ASSERT_FALSE(l.skipped);
  ASSERT_EQ(l.patterns.size(), 4u);
  const P2pMatrix p2p = query_p2p(static_cast<int>(n));
  for (const LoadedPattern& p : l.patterns) {
    SCOPED_TRACE(p.name);
    ASSERT_FALSE(p.links.skipped) << *p.links.skipped;
    const bool sm = p.name.rfind("sm_", 0) == 0;
    double fastest_link = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j) continue;
        const bool reachable = !sm || (p.pull ? p2p.access[j][i] : p2p.access[i][j]);
        if (!reachable) continue;
        ASSERT_TRUE(p.links.values[i][j]) << i << "->" << j;
        EXPECT_GT(*p.links.values[i][j], 0.0);
        fastest_link = std::max(fastest_link, *p.links.values[i][j]);
      }
    ASSERT_TRUE(p.aggregate_gbps);
    // Every GPU's figure is positive and no GPU moves more than its links did in its own time.
    for (std::size_t g = 0; g < n; ++g) {
      ASSERT_TRUE(p.gpu_gbps[g]) << g;
      EXPECT_GT(*p.gpu_gbps[g], 0.0);
      EXPECT_LE(*p.gpu_gbps[g], static_cast<double>(n - 1) * fastest_link * 1.0001);
    }
    EXPECT_LE(*p.aggregate_gbps, static_cast<double>(n * (n - 1)) * fastest_link * 1.0001);
  }
  if (p2p.access[0][1] && p2p.access[1][0]) {
    const auto& v = l.latency_us.values[0][1];
    if (v) {
      EXPECT_GT(*v, 0.0);
      EXPECT_LT(*v, 1000.0);
    } else {
      EXPECT_FALSE(l.latency_us.notes.empty());  // a null cell always says why
    }
  }
}

}  // namespace
}  // namespace arbench::topo
