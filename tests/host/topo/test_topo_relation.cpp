// Relation codes: the full matrix of every fixture, and the cases no fixture has (nested
// switches, unknown NUMA nodes).
#include <gtest/gtest.h>

#include "topo/relation.hpp"
#include "topo/report.hpp"
#include "topo_fixtures.hpp"

namespace arbench::topo {
namespace {

std::vector<std::string> codes(const std::string& fixture) {
  Topology t = read_sysfs_topology(test::sysfs_fixture(fixture));
  std::vector<std::string> rows;
  for (const auto& row : relation_matrix(t, default_selection(t).gpus)) {
    std::string line;
    for (Relation r : row) line += std::string(relation_code(r)) + " ";
    rows.push_back(line);
  }
  return rows;
}

TEST(TopoRelation, FourSwitchesTwoSockets) {
  EXPECT_EQ(codes("four_switches_two_sockets"), (std::vector<std::string>{
                                                    "X PIX PHB PHB SYS SYS SYS SYS ",
                                                    "PIX X PHB PHB SYS SYS SYS SYS ",
                                                    "PHB PHB X PIX SYS SYS SYS SYS ",
                                                    "PHB PHB PIX X SYS SYS SYS SYS ",
                                                    "SYS SYS SYS SYS X PIX NODE NODE ",
                                                    "SYS SYS SYS SYS PIX X NODE NODE ",
                                                    "SYS SYS SYS SYS NODE NODE X PIX ",
                                                    "SYS SYS SYS SYS NODE NODE PIX X ",
                                                }));
}

TEST(TopoRelation, DirectTwoRootComplexes) {
  auto rows = codes("direct_two_root_complexes");
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0], "X PHB PHB PHB SYS SYS SYS SYS ");
  EXPECT_EQ(rows[5], "SYS SYS SYS SYS PHB X PHB PHB ");
}

TEST(TopoRelation, OneSwitchFourGpus) {
  EXPECT_EQ(codes("one_switch_four_gpus"),
            (std::vector<std::string>{"X PIX PIX PIX ", "PIX X PIX PIX ", "PIX PIX X PIX ", "PIX PIX PIX X "}));
}

TEST(TopoRelation, BrokenTreeStillHasAMatrix) {
  EXPECT_EQ(codes("broken"), (std::vector<std::string>{"X PHB ", "PHB X "}));
}

TEST(TopoRelation, NestedSwitchesArePxb) {
  // root port R, switch U with ports D1, D2; D1 leads to a second switch U2 with port D3.
  GpuPath deep{"pci0000:00", {"R", "U", "D1", "U2", "D3"}, 0};
  GpuPath deep2{"pci0000:00", {"R", "U", "D1", "U2", "D4"}, 0};
  GpuPath shallow{"pci0000:00", {"R", "U", "D2"}, 0};
  EXPECT_EQ(relation_between(deep, shallow), Relation::kPxb);
  EXPECT_EQ(relation_between(shallow, deep), Relation::kPxb);
  EXPECT_EQ(relation_between(deep, deep2), Relation::kPix);
  EXPECT_EQ(relation_between(deep, deep), Relation::kSelf);
}

TEST(TopoRelation, HostBridgesAndNumaNodes) {
  GpuPath a{"pci0000:00", {"R1"}, 0}, b{"pci0000:40", {"R2"}, 0}, c{"pci0000:80", {"R3"}, 1};
  GpuPath none1{"pci0000:00", {"R1"}, -1}, none2{"pci0000:40", {"R2"}, -1};
  GpuPath unknown{"pci0000:40", {"R2"}, std::nullopt};
  EXPECT_EQ(relation_between(a, b), Relation::kNode);
  EXPECT_EQ(relation_between(a, c), Relation::kSys);
  EXPECT_EQ(relation_between(none1, none2), Relation::kNode);  // -1: one node only
  EXPECT_EQ(relation_between(a, unknown), Relation::kSys);     // conservative
  GpuPath rp1{"pci0000:00", {"R1"}, 0}, rp2{"pci0000:00", {"R2"}, 0};
  EXPECT_EQ(relation_between(rp1, rp2), Relation::kPhb);
}

TEST(TopoRelation, CodesAreOrderedByDistance) {
  // The ring cost and the "farther than" comparisons rely on this exact order, closest first.
  const std::vector<Relation> closest_first{Relation::kSelf, Relation::kPix, Relation::kPxb,
                                            Relation::kPhb,  Relation::kNode, Relation::kSys};
  EXPECT_EQ(all_relations(), closest_first);
  for (std::size_t i = 1; i < closest_first.size(); ++i)
    EXPECT_LT(closest_first[i - 1], closest_first[i]) << relation_code(closest_first[i]);
  std::string codes;
  for (Relation r : all_relations()) codes += std::string(relation_code(r)) + " ";
  EXPECT_EQ(codes, "X PIX PXB PHB NODE SYS ");
}

TEST(TopoRelation, RenderedMatrixAndLegend) {
  std::vector<std::vector<Relation>> m{{Relation::kSelf, Relation::kPix}, {Relation::kPix, Relation::kSelf}};
  EXPECT_EQ(render_relation_matrix(m, {"GPU0", "GPU1"}), "     GPU0 GPU1\nGPU0 X    PIX\nGPU1 PIX  X\n");
  std::string legend = relation_legend();
  for (const char* code : {"X ", "PIX", "PXB", "PHB", "NODE", "SYS"})
    EXPECT_NE(legend.find(code), std::string::npos) << code;
}

}  // namespace
}  // namespace arbench::topo
