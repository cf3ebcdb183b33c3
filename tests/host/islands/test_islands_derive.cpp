// Islands from the PCIe tree (bench/islands/derive.hpp) on the committed sysfs fixtures of an
// 8-GPU 2-switch box, an 8-GPU 2-socket box, a flat box and a 3 + 5 split (and the older ones),
// refined by a P2P matrix; and what `arbench topo --sysfs-root` shows of them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "arbench/algo/island/island_map.hpp"
#include "islands/derive.hpp"
#include "tests/host/topo/topo_fixtures.hpp"
#include "topo/topology.hpp"

namespace arbench::islands {
namespace {

Derived of_fixture(const std::string& name, const std::vector<std::vector<int>>& p2p = {}) {
  const topo::Topology t = topo::read_sysfs_topology(test::sysfs_fixture(name));
  std::vector<std::string> ids;
  for (const auto& g : t.gpus) ids.push_back(g.bus_id);
  return derive_islands(t, ids, p2p);
}

std::string text(const Derived& d) { return d.unknown.empty() ? algo::islands_text(d.island_of) : "unknown: " + d.unknown; }

TEST(IslandsDerive, TwoSwitchesOfFour) {
  const Derived d = of_fixture("two_switches_eight_gpus");
  EXPECT_EQ(text(d), "0-3,4-7");
  ASSERT_EQ(d.basis.size(), 2u);
  EXPECT_NE(d.basis[0].find("switch below root port 0000:00:01.0"), std::string::npos) << d.basis[0];
  EXPECT_NE(d.basis[1].find("0000:00:03.0"), std::string::npos) << d.basis[1];
}

TEST(IslandsDerive, TwoSocketsOfFour) {
  EXPECT_EQ(text(of_fixture("two_sockets_eight_gpus")), "0-3,4-7");
  // Direct-attached GPUs, four per root complex on two sockets: the root complexes.
  const Derived d = of_fixture("direct_two_root_complexes");
  EXPECT_EQ(text(d), "0-3,4-7");
  EXPECT_NE(d.basis[1].find("root complex pci0000:80"), std::string::npos) << d.basis[1];
}

TEST(IslandsDerive, FlatBoxIsOneIsland) {
  const Derived d = of_fixture("flat_eight_gpus");
  EXPECT_EQ(text(d), "0-7");
  EXPECT_NE(render_islands(d, {}).find("one island: the island variants are skipped"), std::string::npos);
  EXPECT_EQ(text(of_fixture("one_switch_four_gpus")), "0-3");
}

TEST(IslandsDerive, OddSplitThreeFive) { EXPECT_EQ(text(of_fixture("split_three_five")), "0-2,3-7"); }

TEST(IslandsDerive, FourSwitchesAreFourIslands) {
  EXPECT_EQ(text(of_fixture("four_switches_two_sockets")), "0-1,2-3,4-5,6-7");
}

TEST(IslandsDerive, P2pSplitsAnIsland) {
  // The 2-switch box, but GPU 3 has no P2P with GPUs 0-2 (e.g. a BIOS setting): an island needs
  // P2P inside, so it becomes one of its own.
  std::vector<std::vector<int>> p2p(8, std::vector<int>(8, 1));
  for (int g = 0; g < 3; ++g) p2p[3][static_cast<std::size_t>(g)] = p2p[static_cast<std::size_t>(g)][3] = 0;
  const Derived d = of_fixture("two_switches_eight_gpus", p2p);
  EXPECT_EQ(text(d), "0-2,3,4-7");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("needs P2P both ways between every pair"), std::string::npos) << d.notes[0];
  // No P2P across the islands changes nothing: islands need it only inside.
  std::vector<std::vector<int>> inside(8, std::vector<int>(8, 0));
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) inside[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = (a < 4) == (b < 4);
  EXPECT_EQ(text(of_fixture("two_sockets_eight_gpus", inside)), "0-3,4-7");
}

TEST(IslandsDerive, OneGpuPerRootComplexGroupsBySocket) {
  // AMD-style: every GPU on a root complex of its own; the socket (NUMA node) joins them.
  std::vector<std::optional<topo::GpuPath>> paths;
  for (int g = 0; g < 8; ++g)
    paths.push_back(topo::GpuPath{"pci0000:" + std::to_string(10 + g), {"0000:00:01.1"}, g < 4 ? 0 : 1});
  const Derived d = derive_islands(paths);
  EXPECT_EQ(text(d), "0-3,4-7");
  EXPECT_NE(d.basis[0].find("NUMA node 0"), std::string::npos) << d.basis[0];
  // A GPU with no NUMA node known shares nothing with the others.
  paths[7]->numa_node.reset();
  EXPECT_EQ(text(derive_islands(paths)), "0-3,4-6,7");
}

TEST(IslandsDerive, UnplacedGpuLeavesIslandsUnknown) {
  const topo::Topology t = topo::read_sysfs_topology(test::sysfs_fixture("two_switches_eight_gpus"));
  const Derived d = derive_islands(t, {t.gpus[0].bus_id, "0000:ee:00.0"});
  EXPECT_NE(d.unknown.find("0000:ee:00.0"), std::string::npos) << d.unknown;
  EXPECT_EQ(islands_to_json(d).value("unknown", ""), d.unknown);
}

}  // namespace
}  // namespace arbench::islands
