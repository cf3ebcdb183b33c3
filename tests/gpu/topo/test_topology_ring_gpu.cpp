// The GPU remainder of tests/app/test_topology_ring.cpp: on the cuda backend (>= 2 GPUs and
// NCCL) `arbench run --variants ring --links FILE` gives the CUDA ring the order that follows this
// machine's PCIe tree and writes the efficiency counter, FILE being this machine's own link probe.
// Skips with a reason without the GPUs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/gpu/gpu_test_util.hpp"
#include "tests/app/sweep_json.hpp"
#include "arbench/algo/ring/ring_order.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/links.hpp"
#include "topo/gpu/probe.hpp"
#include "topo/ring_order.hpp"
#include "topo/topology.hpp"

namespace arbench::testing {
namespace {

TEST(TopologyRingGpu, RingFollowsTheTreeAndLinksGiveTheCounter) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  const auto gpus = topo::list_cuda_gpus();
  const int world = int(gpus.size());
  const topo::ProbeOptions o{.bytes = 4 << 20, .repetitions = 3, .latency_rounds = 100};
  const std::string links = ::testing::TempDir() + "arbench-links-gpu-" + std::to_string(::getpid()) + ".json";
  std::ofstream(links) << topo::links_to_json(topo::run_link_probes(gpus, o)).dump(2);

  RunConfig cfg = allreduce_sweep("cuda", world, {"ring"});
  cfg.min_bytes = cfg.max_bytes = 1 << 20;
  cfg.warmup = 2;
  cfg.samples = 5;
  cfg.pipelined_ops = 4;
  cfg.links_file = links;
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(sweep_to_json(cfg, "topo-ring-gpu", doc));
  std::remove(links.c_str());

  std::vector<std::string> bus;
  for (const auto& g : gpus) bus.push_back(g.bus_id);
  const auto want = topo::ring_order_for_bus_ids(topo::read_sysfs_topology("/"), bus);
  ASSERT_EQ(doc["arbench"]["cases"].size(), 1u);
  const auto& c = doc["arbench"]["cases"][0];
  ASSERT_EQ(c["status"], "ok") << c["reason"];
  EXPECT_EQ(c["settings"]["ring_order"], algo::ring_order_text(want));
  EXPECT_EQ(c["settings"]["ring_order_source"].get<std::string>().rfind("PCIe topology", 0), 0u);
  ASSERT_TRUE(c.contains("link_efficiency")) << c.dump();
  EXPECT_GT(c["link_efficiency"].get<double>(), 0.0);
  EXPECT_NEAR(c["link_efficiency"].get<double>(), c["busbw_GBps"].get<double>() / c["slowest_link_GBps"].get<double>(),
              1e-9);
}

}  // namespace
}  // namespace arbench::testing
