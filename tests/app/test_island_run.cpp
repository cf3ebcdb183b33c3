// What `arbench run` does for the island variants on the cuda backend, with the machine described
// instead of read (a fixture sysfs tree and its GPUs' bus ids): the islands of every world size
// from the PCIe tree, the model's prediction beside each measured case from a links file's
// latencies and bandwidths, and the harness skipping a world that forms one island with the
// reason. The GPU remainder is tests/gpu/test_custom_kernels_cuda.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "islands/cost_model.hpp"
#include "islands/derive.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "measure/harness.hpp"
#include "run/run_links.hpp"
#include "topo/topology.hpp"

namespace arbench::testing {
namespace {

std::string fixture(const std::string& name) {
  return std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/sysfs/" + name;
}

std::vector<std::string> bus_ids_of(const std::string& box) {
  std::vector<std::string> ids;
  for (const auto& g : topo::read_sysfs_topology(fixture(box)).gpus) ids.push_back(g.bus_id);
  return ids;
}

// 8 GPUs in islands 0-3 and 4-7: inside, 1 us and 50 GB/s; across, 3 us and 20 GB/s.
std::string write_links_file(const std::vector<std::string>& bus) {
  topo::Links l;
  l.bus_ids = bus;
  topo::LinkMatrix lat, bw;
  lat.unit = "us";
  bw.unit = "GB/s";
  lat.values.assign(8, std::vector<std::optional<double>>(8, 1.0));
  bw.values.assign(8, std::vector<std::optional<double>>(8, 50.0));
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      if (i == j) lat.values[i][j] = bw.values[i][j] = std::nullopt;
      if ((i < 4) != (j < 4)) {
        lat.values[i][j] = 3.0;
        bw.values[i][j] = 20.0;
      }
    }
  l.matrices[std::string(topo::kLatency)] = lat;
  l.matrices[std::string(topo::kPushUnidir)] = bw;
  const std::string path = ::testing::TempDir() + "arbench-island-links-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << topo::links_to_json(l).dump(2);
  return path;
}

TEST(IslandRun, IslandsOfEveryWorldSizeFromThePcieTree) {
  RunConfig cfg;
  const RunLinks two_switches(cfg, bus_ids_of("two_switches_eight_gpus"), fixture("two_switches_eight_gpus"));
  const auto by_world = two_switches.islands({2, 4, 8});
  EXPECT_EQ(by_world.at(8), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(by_world.at(4), (std::vector<int>{0, 0, 0, 0}));  // GPUs 0-3: one switch, one island
  const RunLinks odd(cfg, bus_ids_of("split_three_five"), fixture("split_three_five"));
  EXPECT_EQ(odd.islands({4}).at(4), (std::vector<int>{0, 0, 0, 1}));
}

// A pair CUDA reports as P2P but whose data does not move (ACS redirection) splits its island in
// `arbench run` as in `arbench topo`: both follow islands::working_p2p (issue 49, item 7). The
// matrix is injected: every pair reported, GPUs 1 and 2 (one switch) broken both ways.
TEST(IslandRun, AReportedButBrokenPairSplitsTheIslandAsInTopo) {
  RunConfig cfg;
  const auto ids = bus_ids_of("two_switches_eight_gpus");
  RunLinks::PeerMatrix m;
  m.reported.assign(8, std::vector<int>(8, 1));
  for (int g = 0; g < 8; ++g) m.reported[std::size_t(g)][std::size_t(g)] = 0;
  m.checked = PeerAccess(8, "injected", 0.2);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (a != b) m.checked.at(a, b).path = PeerPath::ok;
  const RunLinks whole(cfg, ids, fixture("two_switches_eight_gpus"), m);
  EXPECT_EQ(whole.islands({8}).at(8), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  m.checked.at(1, 2).path = m.checked.at(2, 1).path = PeerPath::broken;
  const RunLinks split(cfg, ids, fixture("two_switches_eight_gpus"), m);
  const std::vector<int> run = split.islands({8}).at(8);
  EXPECT_NE(run[1], run[2]) << "GPUs 1 and 2 share an island although their P2P is broken";
  EXPECT_NE(run[0], run[4]);  // the other switch stays apart
  // What `arbench topo` derives from the same matrix (cmd_topo.cpp): the same islands.
  const topo::Topology t = topo::read_sysfs_topology(fixture("two_switches_eight_gpus"));
  EXPECT_EQ(islands::derive_islands(t, ids, islands::working_p2p(m.reported, m.checked)).island_of, run);
  // Reported only (cudaDeviceCanAccessPeer, what run used before): the broken pair stays inside.
  EXPECT_EQ(islands::derive_islands(t, ids, m.reported).island_of, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
}

TEST(IslandRun, ModelReportedBesideTheMeasurement) {
  const auto ids = bus_ids_of("two_sockets_eight_gpus");
  RunConfig cfg;
  cfg.links_file = write_links_file(ids);
  const RunLinks links(cfg, ids, fixture("two_sockets_eight_gpus"));
  const std::map<int, std::vector<int>> by_world = {{8, {0, 0, 0, 0, 1, 1, 1, 1}}};
  for (const char* variant : {"island-oneshot", "island-twoshot", "oneshot-push", "twoshot"}) {
    CaseResult r;
    r.c = Case{variant, Family::allreduce, DType::bf16, 8, 65536, 0, 0, false};
    r.ok = true;
    links.annotate(r, by_world);
    ASSERT_TRUE(r.extra.count("model_us")) << variant;
    const auto p = islands::predict(variant, by_world.at(8), 65536, islands::LinkCosts{1e-6, 50, 3e-6, 20});
    EXPECT_NEAR(r.extra.at("model_us"), p->seconds() * 1e6, 1e-9) << variant;
  }
  CaseResult ring;
  ring.c = Case{"ring", Family::allreduce, DType::bf16, 8, 65536, 0, 0, false};
  ring.ok = true;
  links.annotate(ring, by_world);
  EXPECT_FALSE(ring.extra.count("model_us"));  // not modelled
  std::remove(cfg.links_file.c_str());
}

TEST(IslandRun, HarnessSkipsOneIslandWithTheReason) {
  RunConfig cfg;
  cfg.warmup = 1;
  cfg.samples = 2;
  cfg.pipelined_ops = 1;
  cfg.tuning.islands = {{4, {0, 0, 0, 0}}, {8, {0, 0, 0, 1, 1, 1, 1, 1}}};
  Registry reg;
  register_host_variants(reg);
  FabricCache fabrics([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world); });
  Harness h(cfg, Backend::host, reg, fabrics);
  const Support one = h.plan(Case{"island-oneshot", Family::allreduce, DType::bf16, 4, 4096, 0, 0, false});
  EXPECT_FALSE(one.ok);
  EXPECT_NE(one.reason.find("form one island (0-3)"), std::string::npos) << one.reason;
  const Case eight{"island-twoshot", Family::allreduce, DType::fp16, 8, 4096, 0, 0, false};
  ASSERT_TRUE(h.plan(eight).ok);
  const CaseResult r = h.run(eight);
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.wrong_elements, 0u);
}

}  // namespace
}  // namespace arbench::testing
