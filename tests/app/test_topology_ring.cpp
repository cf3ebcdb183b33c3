// The topology-aware ring order and the efficiency counter, end to end on the host: what
// `arbench run` does on the cuda backend (read the PCIe tree, give the ring variant the order that
// follows it, read --links FILE, annotate each case), with the machine described instead of read:
// a fixture sysfs tree and its GPUs' bus ids, and the ring's host twin running the order. The GPU
// remainder (a real tree, real links, the CUDA ring) is tests/gpu/topo/test_topology_ring_gpu.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/fabric/host/host_fabric.hpp"
#include "measure/harness.hpp"
#include "run/run_links.hpp"
#include "topo/topology.hpp"

namespace arbench::testing {
namespace {

std::string fixture(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/sysfs/" + name;
}

// Ranks 0..3 on GPUs listed in an interleaved order: 0 and 1 on socket 0, then one of socket 1,
// ... (direct_two_root_complexes: GPUs 0-3 on socket 0, 4-7 on socket 1). Rank order crosses the
// sockets four times; the tree's order 0,2,1,3 twice.
std::vector<std::string> interleaved_bus_ids() {
  const topo::Topology t = topo::read_sysfs_topology(fixture("direct_two_root_complexes"));
  return {t.gpus[0].bus_id, t.gpus[4].bus_id, t.gpus[1].bus_id, t.gpus[5].bus_id};
}

// A links file for those four GPUs (ranks 0 and 2 on socket 0, 1 and 3 on socket 1): 50 GB/s
// one way inside a socket; across the sockets 10 GB/s, except 2->1 and 3->0 at 20 GB/s, the two
// crossings the tree's ring 0,2,1,3 takes. So the counter tells the orders apart: the tree's
// ring's slowest link is 20, rank order's (0->1, 1->2, 2->3 all cross) is 10.
std::string write_links_file(const std::vector<std::string>& bus) {
  topo::Links l;
  l.bus_ids = bus;
  topo::LinkMatrix m;
  m.unit = "GB/s";
  m.values.assign(4, std::vector<std::optional<double>>(4, 50.0));
  for (int i = 0; i < 4; ++i) {
    m.values[i][i] = std::nullopt;
    for (int j = 0; j < 4; ++j)
      if (i != j && (i % 2) != (j % 2)) m.values[i][j] = 10.0;
  }
  m.values[2][1] = m.values[3][0] = 20.0;
  l.matrices[std::string(topo::kCeUnidir)] = m;
  const std::string path = ::testing::TempDir() + "arbench-links-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << topo::links_to_json(l).dump(2);
  return path;
}

CaseResult run_ring(const RunConfig& cfg) {
  Registry reg;
  register_host_variants(reg);
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const Case c{"ring", Family::allreduce, DType::bf16, 4, 4 * 1024, 0, 0, false};
  EXPECT_TRUE(h.plan(c).ok);
  return h.run(c);
}

std::map<std::string, std::string> settings_of(const CaseResult& r) {
  return std::map<std::string, std::string>(r.settings.begin(), r.settings.end());
}

RunConfig quick() {
  RunConfig cfg;
  cfg.warmup = 1;
  cfg.samples = 2;
  cfg.pipelined_ops = 1;
  cfg.gpus = {2, 4};
  return cfg;
}

TEST(TopologyRing, RunGivesTheRingTheTreesOrderAndTheLinksGiveTheCounter) {
  RunConfig cfg = quick();
  const auto bus = interleaved_bus_ids();
  cfg.links_file = write_links_file(bus);
  const RunLinks links(cfg, bus, fixture("direct_two_root_complexes"));
  EXPECT_EQ(links.source(), "file " + cfg.links_file);
  // What run_sweep does with them:
  cfg.tuning.topology_ring_orders = links.ring_orders(cfg.gpus);
  EXPECT_EQ(cfg.tuning.topology_ring_orders.at(4), (std::vector<int>{0, 2, 1, 3}));
  CaseResult r = run_ring(cfg);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_TRUE(r.checked);
  auto s = settings_of(r);
  EXPECT_EQ(s["ring_order"], "0,2,1,3");
  EXPECT_EQ(s["ring_order_source"].rfind("PCIe topology", 0), 0u) << s["ring_order_source"];
  links.annotate(r);
  // The counter walks the ring the case ran: 0->2, 2->1, 1->3, 3->0, slowest 20 GB/s.
  ASSERT_TRUE(r.extra.count("link_efficiency")) << "no efficiency counter with --links";
  EXPECT_DOUBLE_EQ(r.extra.at("slowest_link_GBps"), 20.0);
  EXPECT_DOUBLE_EQ(r.extra.at("link_efficiency"), r.busbw_gbps / 20.0);
  std::remove(cfg.links_file.c_str());
}

TEST(TopologyRing, AnInvalidTopologyOrderFallsBackToRankOrder) {
  const auto bus = interleaved_bus_ids();
  for (const std::vector<int>& bad : {std::vector<int>{0, 1, 1, 3}, {0, 1, 2}, {0, 1, 2, 4}}) {
    RunConfig cfg = quick();
    cfg.links_file = write_links_file(bus);
    const RunLinks links(cfg, bus, fixture("direct_two_root_complexes"));
    cfg.tuning.topology_ring_orders[4] = bad;
    CaseResult r = run_ring(cfg);
    ASSERT_TRUE(r.ok) << r.reason;
    auto s = settings_of(r);
    EXPECT_EQ(s["ring_order"], "0,1,2,3");
    EXPECT_EQ(s["ring_order_source"], "rank order");
    links.annotate(r);
    EXPECT_DOUBLE_EQ(r.extra.at("slowest_link_GBps"), 10.0);  // rank order's walk
    std::remove(cfg.links_file.c_str());
  }
}

TEST(TopologyRing, RingOrderOptionBeatsTheTree) {
  RunConfig cfg = quick();
  const auto bus = interleaved_bus_ids();
  const RunLinks without_file(cfg, bus, fixture("direct_two_root_complexes"));
  EXPECT_EQ(without_file.source().rfind("none:", 0), 0u) << without_file.source();
  cfg.tuning.topology_ring_orders = without_file.ring_orders(cfg.gpus);
  cfg.tuning.ring_order = {3, 2, 1, 0};
  CaseResult r = run_ring(cfg);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(settings_of(r)["ring_order"], "3,2,1,0");
  EXPECT_EQ(settings_of(r)["ring_order_source"], "--ring-order");
  without_file.annotate(r);
  EXPECT_FALSE(r.extra.count("link_efficiency")) << "no --links, no probe: no counter";
}

}  // namespace
}  // namespace arbench::testing
