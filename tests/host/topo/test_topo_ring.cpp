// Topology-aware ring order: groups stay contiguous, and no permutation beats it (checked by
// brute force over all rings on the 8-GPU fixtures, against costs counted by hand).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "topo/ring_order.hpp"
#include "topo_fixtures.hpp"

namespace arbench::topo {
namespace {

std::vector<GpuPath> paths_of(const Topology& t) {
  std::vector<GpuPath> p;
  for (const auto& g : t.gpus) p.push_back(g.path);
  return p;
}

// Best and worst cost over all rings (rotations are equivalent, so the first element stays fixed).
std::pair<RingCost, RingCost> brute_force_best_and_worst(const std::vector<GpuPath>& paths) {
  std::vector<int> perm(paths.size());
  std::iota(perm.begin(), perm.end(), 0);
  RingCost best = ring_cost(paths, perm), worst = best;
  while (std::next_permutation(perm.begin() + 1, perm.end())) {
    RingCost c = ring_cost(paths, perm);
    if (ring_cost_less(c, best)) best = c;
    if (ring_cost_less(worst, c)) worst = c;
  }
  return {best, worst};
}

// Edges per relation, by hand from each fixture's relation matrix (test_topo_relation.cpp):
// index X, PIX, PXB, PHB, NODE, SYS.
struct RingFixture {
  const char* name;
  RingCost best;  // the optimal ring, counted by hand
  bool some_ring_is_worse;  // false: every ring costs the same, so the fixture cannot tell orders apart
};

const RingFixture kRingFixtures[] = {
    // 4 switches of 2 GPUs, 2 per socket: in each socket one PHB (or NODE) hop between its
    // switches, 2 SYS hops between the sockets, 4 PIX hops inside the switches.
    {"four_switches_two_sockets", {0, 4, 0, 1, 1, 2}, true},
    // 8 GPUs on their own root ports, 4 per socket: 6 PHB hops inside the sockets, 2 SYS between.
    {"direct_two_root_complexes", {0, 0, 0, 6, 0, 2}, true},
    {"one_switch_four_gpus", {0, 4, 0, 0, 0, 0}, false},
    {"broken", {0, 0, 0, 2, 0, 0}, false},
};

class TopoRingFixture : public ::testing::TestWithParam<RingFixture> {};

TEST_P(TopoRingFixture, RingOrderIsOptimalEvenFromShuffledInput) {
  const RingFixture& fx = GetParam();
  Topology t = read_sysfs_topology(test::sysfs_fixture(fx.name));
  auto paths = paths_of(t);
  std::mt19937 rng(42);
  std::shuffle(paths.begin(), paths.end(), rng);
  auto order = ring_order(paths);
  ASSERT_EQ(order.size(), paths.size());
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], int(i)) << "not a permutation";
  const auto [best, worst] = brute_force_best_and_worst(paths);
  EXPECT_EQ(best, fx.best) << "the brute force disagrees with the hand count";
  EXPECT_EQ(ring_cost(paths, order), fx.best);
  EXPECT_EQ(ring_cost_less(best, worst), fx.some_ring_is_worse);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TopoRingFixture, ::testing::ValuesIn(kRingFixtures),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(TopoRing, CostOrderingByHand) {
  // ring_cost_less ranks SYS edges first, then edges at NODE or farther, and so on.
  const RingCost two_sys{0, 6, 0, 0, 0, 2}, four_phb{0, 0, 0, 4, 2, 2}, more_sys{0, 8, 0, 0, 0, 4};
  EXPECT_TRUE(ring_cost_less(two_sys, more_sys));
  EXPECT_FALSE(ring_cost_less(more_sys, two_sys));
  EXPECT_TRUE(ring_cost_less(two_sys, four_phb));  // same SYS, fewer edges at NODE or farther
  EXPECT_FALSE(ring_cost_less(two_sys, two_sys));
  EXPECT_EQ(ring_crossings(four_phb, Relation::kPhb), 8);
}

TEST(TopoRing, FourSwitchesCrossesEachGroupTwice) {
  Topology t = read_sysfs_topology(test::sysfs_fixture("four_switches_two_sockets"));
  auto order = ring_order(t);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  RingCost c = ring_cost(paths_of(t), order);
  EXPECT_EQ(ring_crossings(c, Relation::kSys), 2);   // leave socket 0 once, come back once
  EXPECT_EQ(ring_crossings(c, Relation::kNode), 3);  // + the host-bridge hop on socket 1
  EXPECT_EQ(ring_crossings(c, Relation::kPhb), 4);   // every switch left exactly once
  EXPECT_EQ(c[static_cast<int>(Relation::kPix)], 4);
}

TEST(TopoRing, BusOrderIsNotAlwaysBest) {
  // CUDA ordinals listed in an interleaved order: 0 and 1 on socket 0, 2 on socket 1, ...
  Topology t = read_sysfs_topology(test::sysfs_fixture("direct_two_root_complexes"));
  std::vector<std::string> ids{t.gpus[0].bus_id, t.gpus[4].bus_id, t.gpus[1].bus_id, t.gpus[5].bus_id};
  auto order = ring_order_for_bus_ids(t, ids);
  EXPECT_EQ(order, (std::vector<int>{0, 2, 1, 3}));
  std::vector<GpuPath> p{t.gpus[0].path, t.gpus[4].path, t.gpus[1].path, t.gpus[5].path};
  std::vector<int> identity{0, 1, 2, 3};
  EXPECT_EQ(ring_crossings(ring_cost(p, identity), Relation::kSys), 4);
  EXPECT_EQ(ring_crossings(ring_cost(p, order), Relation::kSys), 2);
}

TEST(TopoRing, UnknownBusIdsGoLastInInputOrder) {
  Topology t = read_sysfs_topology(test::sysfs_fixture("one_switch_four_gpus"));
  std::vector<std::string> ids{"0000:ee:00.0", t.gpus[1].bus_id, "not-a-bus-id", t.gpus[0].bus_id};
  EXPECT_EQ(ring_order_for_bus_ids(t, ids), (std::vector<int>{3, 1, 0, 2}));
}

TEST(TopoRing, SmallRings) {
  EXPECT_TRUE(ring_order(std::vector<GpuPath>{}).empty());
  std::vector<GpuPath> one{{"pci0000:00", {"R"}, 0}};
  std::vector<int> order{0};
  EXPECT_EQ(ring_order(one), order);
  EXPECT_EQ(ring_crossings(ring_cost(one, order), Relation::kPix), 0);
}

TEST(TopoRing, AcrossNodesTheRingLeavesEachNodeOnce) {
  // mpirun --map-by node: ranks alternate between nodes a (0) and b (1).
  const std::vector<int> node_of = {0, 1, 0, 1, 0, 1, 0, 1};
  const std::vector<int> order = ring_order_across_nodes(node_of, {{0, 2, 6, 4}, {3, 1, 5, 7}});
  EXPECT_EQ(order, (std::vector<int>{0, 2, 6, 4, 3, 1, 5, 7}));
  int crossings = 0;
  for (std::size_t k = 0; k < order.size(); ++k)
    crossings += node_of[order[k]] != node_of[order[(k + 1) % order.size()]] ? 1 : 0;
  EXPECT_EQ(crossings, 2);  // out of a and back, nothing more
  EXPECT_THROW(ring_order_across_nodes(node_of, {{0, 2, 6, 4}, {3, 1, 5}}), std::invalid_argument);  // 7 missing
  EXPECT_THROW(ring_order_across_nodes(node_of, {{0, 2, 6, 4, 1}, {3, 5, 7}}), std::invalid_argument);
}

}  // namespace
}  // namespace arbench::topo
