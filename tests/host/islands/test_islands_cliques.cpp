// Islands are cliques of P2P, not connected components (bench/islands/p2p_split.hpp), on the
// committed sysfs fixtures: a P2P chain, a one-way pair, two GPUs of unknown NUMA node, and boxes
// of 10 and 16 GPUs (more than the island kernels' 8 ranks). Each gives the islands
// docs/topology.md ("Islands") documents, with the note that says why.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "islands/derive.hpp"
#include "islands/p2p_split.hpp"
#include "tests/host/topo/topo_fixtures.hpp"
#include "topo/topology.hpp"

namespace arbench::islands {
namespace {

using Matrix = std::vector<std::vector<int>>;

Derived of_fixture(const std::string& name, const Matrix& p2p = {}) {
  const topo::Topology t = topo::read_sysfs_topology(test::sysfs_fixture(name));
  std::vector<std::string> ids;
  for (const auto& g : t.gpus) ids.push_back(g.bus_id);
  return derive_islands(t, ids, p2p);
}

std::string text(const Derived& d) { return d.unknown.empty() ? islands_text_of(d.island_of) : "unknown: " + d.unknown; }

std::string all_notes(const Derived& d) {
  std::string s;
  for (const auto& n : d.notes) s += n + "\n";
  return s;
}

Matrix full(int n) { return Matrix(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 1)); }

void cut(Matrix& m, int a, int b) { m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = 0; }

// Every island of d has P2P both ways between every pair (what the island kernels need).
void expect_cliques(const Derived& d, const Matrix& p2p) {
  for (std::size_t a = 0; a < d.island_of.size(); ++a)
    for (std::size_t b = 0; b < d.island_of.size(); ++b)
      if (a != b && d.island_of[a] == d.island_of[b]) {
        EXPECT_TRUE(p2p_both_ways(p2p, static_cast<int>(a), static_cast<int>(b))) << a << " and " << b << " share an island";
      }
}

TEST(IslandsCliques, ChainIsSplitNotJoined) {
  // One switch of four, P2P only along the chain 0<->1<->2<->3: connected, but 0 cannot reach 2.
  Matrix chain = Matrix(4, std::vector<int>(4, 0));
  for (int g = 0; g + 1 < 4; ++g) chain[g][g + 1] = chain[g + 1][g] = 1;
  const Derived d = of_fixture("one_switch_four_gpus", chain);
  EXPECT_EQ(text(d), "0-1,2-3");
  expect_cliques(d, chain);
  ASSERT_EQ(d.notes.size(), 1u) << all_notes(d);
  EXPECT_NE(d.notes[0].find("split into 2 islands (0,1 | 2,3)"), std::string::npos) << d.notes[0];
  EXPECT_NE(d.notes[0].find("0<->2: none"), std::string::npos) << d.notes[0];
  EXPECT_NE(d.notes[0].find("greedily in GPU order"), std::string::npos) << d.notes[0];
  EXPECT_NE(render_islands(d, {}).find("note: GPUs 0,1,2,3"), std::string::npos);
  // The three-GPU chain of the issue: {0,1} and {2}, GPU 3 (P2P with all) joins the first.
  Matrix three = full(4);
  cut(three, 0, 2);
  cut(three, 2, 0);
  EXPECT_EQ(text(of_fixture("one_switch_four_gpus", three)), "0-1+3,2");
}

TEST(IslandsCliques, OneWayPairIsNoP2p) {
  // The 2-switch box where GPU 1 cannot reach GPU 0 (0 reaches 1): the pair is split.
  Matrix p2p = full(8);
  cut(p2p, 1, 0);
  const Derived d = of_fixture("two_switches_eight_gpus", p2p);
  EXPECT_EQ(text(d), "0+2-3,1,4-7");
  expect_cliques(d, p2p);
  ASSERT_EQ(d.notes.size(), 1u) << all_notes(d);
  EXPECT_NE(d.notes[0].find("0->1 only (not 1->0)"), std::string::npos) << d.notes[0];
  // Either direction alone is no P2P.
  const P2pSplit s = split_by_p2p({1, 0}, Matrix{{1, 0}, {1, 1}});
  EXPECT_EQ(s.islands, (std::vector<std::vector<int>>{{0}, {1}}));
  EXPECT_EQ(s.missing, std::vector<std::string>{"1->0 only (not 0->1)"});
}

TEST(IslandsCliques, UnknownNumaNodesDoNotMerge) {
  // Two GPUs, each on a root complex of its own, numa_node -1 for both: nothing says they share
  // a socket.
  const Derived d = of_fixture("unknown_numa_two_gpus");
  EXPECT_EQ(text(d), "0,1");
  EXPECT_NE(all_notes(d).find("GPUs 0,1: NUMA node unknown"), std::string::npos) << all_notes(d);
  // The same GPUs with a known node do share it.
  std::vector<std::optional<topo::GpuPath>> paths{topo::GpuPath{"pci0000:00", {"0000:00:01.0"}, 0},
                                                  topo::GpuPath{"pci0000:80", {"0000:80:01.0"}, 0}};
  EXPECT_EQ(text(derive_islands(paths)), "0-1");
  paths[0]->numa_node = -1;
  paths[1]->numa_node = -1;
  EXPECT_EQ(text(derive_islands(paths)), "0,1");
}

TEST(IslandsCliques, TenGpusAreDerivedWithANote) {
  const Derived d = of_fixture("ten_gpus");
  ASSERT_EQ(d.island_of.size(), 10u);
  EXPECT_EQ(text(d), "0-4,5-9");
  EXPECT_NE(all_notes(d).find("10 GPUs: the island variants run on at most 8 ranks"), std::string::npos) << all_notes(d);
  EXPECT_EQ(islands_to_json(d).value("islands", ""), "0-4,5-9");
}

TEST(IslandsCliques, SixteenGpusWithABrokenPairAboveRankEight) {
  EXPECT_EQ(text(of_fixture("sixteen_gpus")), "0-3,4-7,8-11,12-15");
  // No P2P between GPUs 9 and 10 (ranks >= 8: past island_map.hpp's 4-bit fields).
  Matrix p2p = full(16);
  cut(p2p, 9, 10);
  cut(p2p, 10, 9);
  const Derived d = of_fixture("sixteen_gpus", p2p);
  EXPECT_EQ(text(d), "0-3,4-7,8-9+11,10,12-15");
  expect_cliques(d, p2p);
  EXPECT_EQ(d.basis.size(), 5u);
  EXPECT_NE(all_notes(d).find("9<->10: none"), std::string::npos) << all_notes(d);
}

TEST(IslandsCliques, TextOfAnySize) {
  EXPECT_EQ(islands_text_of({0, 0, 0, 0, 1, 1, 1, 1}), "0-3,4-7");
  EXPECT_EQ(islands_text_of({0, 1, 0, 1}), "0+2,1+3");
  EXPECT_EQ(islands_text_of({0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}), "0-8,9-10");
}

}  // namespace
}  // namespace arbench::islands
