// The drawn tree, the text report and the JSON of every fixture.
#include <gtest/gtest.h>

#include "topo/report.hpp"
#include "topo/tree.hpp"
#include "tests/host/text_checks.hpp"
#include "topo_fixtures.hpp"

namespace arbench::topo {
namespace {

Topology load(const std::string& name) { return read_sysfs_topology(test::sysfs_fixture(name)); }

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

using test::expect_contains_all;

TEST(TopoReport, OneSwitchTreeText) {
  EXPECT_EQ(render_tree(load("one_switch_four_gpus")),
            "NUMA node -1 (no NUMA affinity reported)\n"
            "  pci0000:00  host bridge (root complex)\n"
            "    0000:00:01.0  root_port  link Gen5 x16 (max Gen5 x16)\n"
            "      0000:01:00.0  switch_upstream_port  link Gen5 x16 (max Gen5 x16)\n"
            "        0000:02:00.0  switch_downstream_port  link Gen5 x16 (max Gen5 x16)\n"
            "          0000:03:00.0  GPU0  10de:2bb1  link Gen5 x16 (max Gen5 x16)  NUMA -1\n"
            "        0000:02:01.0  switch_downstream_port  link Gen5 x16 (max Gen5 x16)\n"
            "          0000:04:00.0  GPU1  10de:2bb1  link Gen5 x16 (max Gen5 x16)  NUMA -1\n"
            "        0000:02:02.0  switch_downstream_port  link Gen5 x16 (max Gen5 x16)\n"
            "          0000:05:00.0  GPU2  10de:2bb1  link Gen5 x16 (max Gen5 x16)  NUMA -1\n"
            "        0000:02:03.0  switch_downstream_port  link Gen5 x16 (max Gen5 x16)\n"
            "          0000:06:00.0  GPU3  10de:2bb1  link Gen5 x16 (max Gen5 x16)  NUMA -1\n");
}

TEST(TopoReport, FourSwitchesTreeStructure) {
  TreeNode root = build_tree(load("four_switches_two_sockets"));
  ASSERT_EQ(root.children.size(), 2u);  // two NUMA nodes
  const TreeNode& n0 = root.children[0];
  EXPECT_EQ(n0.name, "0");
  ASSERT_EQ(n0.children.size(), 1u);  // one host bridge on socket 0
  const TreeNode& hb = n0.children[0];
  ASSERT_EQ(hb.children.size(), 2u);  // two root ports, one switch each
  const TreeNode& up = hb.children[0].children[0];
  EXPECT_EQ(up.kind, TreeNode::Kind::kSwitchUpstream);
  ASSERT_EQ(up.children.size(), 2u);
  EXPECT_EQ(up.children[1].kind, TreeNode::Kind::kSwitchDownstream);
  EXPECT_EQ(up.children[1].children[0].kind, TreeNode::Kind::kGpu);
  EXPECT_EQ(up.children[1].children[0].gpu, 1);
  EXPECT_EQ(root.children[1].children.size(), 2u);  // socket 1: two host bridges
  std::string text = render_tree(load("four_switches_two_sockets"));
  expect_contains_all(text, {"0000:04:00.0  GPU1  10de:2bb1  link Gen1 x16 (max Gen5 x16)  NUMA 0\n",
                             "NUMA node 1\n  pci0000:80  host bridge"});
}

TEST(TopoReport, DirectTreeHasRootPortsOnly) {
  std::string text = render_tree(load("direct_two_root_complexes"));
  EXPECT_TRUE(has(text, "    0000:80:04.1  root_port  link Gen5 x16 (max Gen5 x16)\n"
                        "      0000:84:00.0  GPU7  10de:2bb1"));
  EXPECT_FALSE(has(text, "switch"));
}

TEST(TopoReport, FullTextForEveryFixture) {
  for (const char* name : {"four_switches_two_sockets", "direct_two_root_complexes", "one_switch_four_gpus"}) {
    std::string text = render_topology(load(name));
    expect_contains_all(
        text, {"PCIe tree:", "Relation matrix:", "Legend:", "Topology-aware ring order: GPU0 GPU1 GPU2 GPU3"}, name);
    EXPECT_FALSE(has(text, "Warnings:")) << name;
  }
  std::string a = render_topology(load("four_switches_two_sockets"));
  expect_contains_all(a, {"8 NVIDIA GPU(s) placed, 0 not placed",
                          "GPU4 SYS  SYS  SYS  SYS  X    PIX  NODE NODE\n",
                          "(ring edges: 4 PIX 0 PXB 1 PHB 1 NODE 2 SYS)"});
}

TEST(TopoReport, BrokenTextSaysUnknownAndWhy) {
  std::string text = render_topology(load("broken"));
  expect_contains_all(text, {"2 NVIDIA GPU(s) placed, 2 not placed",
                             "GPU0  0000:01:00.0  NUMA unknown  link unknown\n",
                             "GPU1  0000:02:00.0  NUMA unknown  link Gen? x16 (max Gen5 x?)\n",
                             "0000:03:00.0  not placed: device path /sys/devices/virtual/vbus0/0000:03:00.0 has no "
                             "PCI host bridge",
                             "0000:06:00.0  not placed: sysfs entry /sys/bus/pci/devices/0000:06:00.0 is not a link",
                             "Warnings:\n  /sys/bus/pci/devices/0000:04:00.0: link target missing",
                             "0000:01:00.0  GPU0  10de:unknown  link unknown  NUMA unknown"});
}

TEST(TopoReport, NoGpuText) {
  std::string text = render_topology(read_sysfs_topology("/nonexistent"));
  expect_contains_all(text, {"No NVIDIA GPU with a PCIe path was found.", "Warnings:"});
}

TEST(TopoReport, JsonOfFourSwitches) {
  nlohmann::json j = topology_to_json(load("four_switches_two_sockets"));
  ASSERT_EQ(j["gpus"].size(), 8u);
  EXPECT_EQ(j["gpus"][1]["bus_id"], "0000:04:00.0");
  EXPECT_EQ(j["gpus"][1]["link"]["current"]["generation"], 1);
  EXPECT_EQ(j["gpus"][1]["link"]["max"]["generation"], 5);
  EXPECT_EQ(j["gpus"][1]["link"]["max"]["width"], 16);
  EXPECT_EQ(j["gpus"][1]["bridges"], nlohmann::json({"0000:00:01.1", "0000:01:00.0", "0000:02:01.0"}));
  EXPECT_EQ(j["relations"]["matrix"][0][4], "SYS");
  EXPECT_EQ(j["relations"]["matrix"][4][6], "NODE");
  EXPECT_EQ(j["relations"]["labels"][7], "GPU7");
  EXPECT_TRUE(j["relations"]["legend"].contains("PXB"));
  EXPECT_EQ(j["ring_order"]["positions"], nlohmann::json({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(j["ring_order"]["edges_by_relation"]["SYS"], 2);
  ASSERT_EQ(j["tree"].size(), 2u);
  EXPECT_EQ(j["tree"][0]["kind"], "numa_node");
  EXPECT_EQ(j["tree"][0]["children"][0]["kind"], "host_bridge");
  EXPECT_EQ(j["tree"][0]["children"][0]["children"][0]["kind"], "root_port");
  EXPECT_TRUE(j["unplaced"].empty());
}

TEST(TopoReport, JsonOfBrokenTreeUsesNull) {
  nlohmann::json j = topology_to_json(load("broken"));
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_TRUE(j["gpus"][0]["numa_node"].is_null());
  EXPECT_TRUE(j["gpus"][0]["device_id"].is_null());
  EXPECT_TRUE(j["gpus"][0]["link"]["current"]["speed_gts"].is_null());
  EXPECT_TRUE(j["gpus"][1]["link"]["max"]["width"].is_null());
  ASSERT_EQ(j["unplaced"].size(), 2u);
  EXPECT_EQ(j["unplaced"][0]["bus_id"], "0000:03:00.0");
  EXPECT_EQ(j["warnings"].size(), 2u);
}

TEST(TopoReport, SelectionRelabelsAndReorders) {
  Topology t = load("one_switch_four_gpus");
  Selection sel{{2, 0}, {"cuda:0", "cuda:1"}};
  nlohmann::json j = topology_to_json(t, sel);
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][0]["bus_id"], "0000:05:00.0");
  EXPECT_EQ(j["gpus"][0]["label"], "cuda:0");
  std::string text = render_topology(t, sel);
  expect_contains_all(text, {"0000:04:00.0  (not selected)",
                             "       cuda:0 cuda:1\ncuda:0 X      PIX\n"});
}

TEST(TopoReport, SelectionForBusIdsSkipsUnplaced) {
  Topology t = load("four_switches_two_sockets");
  Selection s = selection_for_bus_ids(t, {"0000:c4:00.0", "0000:ee:00.0", "0000:03:00.0"});
  EXPECT_EQ(s.gpus, (std::vector<int>{7, 0}));
  EXPECT_EQ(s.labels, (std::vector<std::string>{"cuda:0", "cuda:2"}));
}

TEST(TopoReport, ProvenanceForARun) {
  // Ranks on GPUs of both sockets, interleaved: the ring order groups them by socket.
  nlohmann::json j = topology_provenance({"0000:03:00.0", "0000:83:00.0", "0000:04:00.0", "0000:84:00.0"},
                                         test::sysfs_fixture("four_switches_two_sockets"));
  EXPECT_EQ(j["ring_order"], nlohmann::json({0, 2, 1, 3}));
  EXPECT_EQ(j["topology"]["relations"]["labels"], nlohmann::json({"rank:0", "rank:1", "rank:2", "rank:3"}));
  EXPECT_EQ(j["topology"]["relations"]["matrix"][0][2], "PIX");
  nlohmann::json none = topology_provenance({"0000:03:00.0"}, "/nonexistent");
  EXPECT_EQ(none["ring_order"], nlohmann::json::array({0}));
  EXPECT_FALSE(none["topology"]["warnings"].empty());
}

TEST(TopoReport, LinkJson) {
  PcieLink l;
  l.current.speed_gts = 2.5;
  l.max.width = 16;
  nlohmann::json j = link_to_json(l);
  EXPECT_EQ(j["current"]["generation"], 1);
  EXPECT_TRUE(j["current"]["width"].is_null());
  EXPECT_EQ(j["max"]["width"], 16);
  EXPECT_TRUE(j["max"]["speed_gts"].is_null());
}

}  // namespace
}  // namespace arbench::topo
