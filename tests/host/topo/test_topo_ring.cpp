// Topology-aware ring order: groups stay contiguous, and no permutation beats it (checked
// by brute force over all rings on the 8-GPU fixtures).
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

// Best cost over all rings (rotations are equivalent, so the first element stays fixed).
RingCost brute_force_best(const std::vector<GpuPath>& paths) {
  std::vector<int> perm(paths.size());
  std::iota(perm.begin(), perm.end(), 0);
  RingCost best = ring_cost(paths, perm);
  while (std::next_permutation(perm.begin() + 1, perm.end())) {
    RingCost c = ring_cost(paths, perm);
    if (ring_cost_less(c, best)) best = c;
  }
  return best;
}

class TopoRingFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(TopoRingFixture, RingOrderIsOptimalEvenFromShuffledInput) {
  Topology t = read_sysfs_topology(test::sysfs_fixture(GetParam()));
  auto paths = paths_of(t);
  std::mt19937 rng(42);
  std::shuffle(paths.begin(), paths.end(), rng);
  auto order = ring_order(paths);
  ASSERT_EQ(order.size(), paths.size());
  RingCost got = ring_cost(paths, order), best = brute_force_best(paths);
  EXPECT_FALSE(ring_cost_less(best, got));
  EXPECT_EQ(got, best);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TopoRingFixture,
                         ::testing::Values("four_switches_two_sockets", "direct_two_root_complexes",
                                           "one_switch_four_gpus", "broken"));

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
