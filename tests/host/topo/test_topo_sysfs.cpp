// The sysfs reader on every fixture: GPUs found, paths split, links and NUMA read, and the
// broken tree reported as unknowns, unplaced GPUs and warnings instead of a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "topo/topology.hpp"
#include "topo_fixtures.hpp"

namespace arbench::topo {
namespace {

using test::sysfs_fixture;

TEST(TopoSysfs, FourSwitchesTwoSockets) {
  Topology t = read_sysfs_topology(sysfs_fixture("four_switches_two_sockets"));
  ASSERT_EQ(t.gpus.size(), 8u);
  EXPECT_TRUE(t.unplaced.empty());
  EXPECT_TRUE(t.warnings.empty());
  std::vector<std::string> ids;
  for (const auto& g : t.gpus) ids.push_back(g.bus_id);
  EXPECT_EQ(ids, (std::vector<std::string>{"0000:03:00.0", "0000:04:00.0", "0000:07:00.0", "0000:08:00.0",
                                           "0000:83:00.0", "0000:84:00.0", "0000:c3:00.0", "0000:c4:00.0"}));
  const GpuInfo& g0 = t.gpus[0];
  EXPECT_EQ(g0.path.host_bridge, "pci0000:00");
  EXPECT_EQ(g0.path.bridges, (std::vector<std::string>{"0000:00:01.1", "0000:01:00.0", "0000:02:00.0"}));
  EXPECT_EQ(g0.path.numa_node, 0);
  EXPECT_EQ(g0.device_id, "0x2bb1");
  EXPECT_EQ(g0.link.current.generation(), 5);
  EXPECT_EQ(g0.link.max.width, 16);
  EXPECT_EQ(t.gpus[1].link.current.generation(), 1);  // idle GPU, trained down
  EXPECT_EQ(t.gpus[1].link.max.generation(), 5);
  EXPECT_EQ(t.gpus[6].path.host_bridge, "pci0000:c0");
  EXPECT_EQ(t.gpus[6].path.numa_node, 1);
  ASSERT_TRUE(t.bridges.count("0000:81:00.0"));
  EXPECT_EQ(t.bridges.at("0000:81:00.0").link.max.width, 16);
  EXPECT_FALSE(t.bridges.count("0000:00:02.1"));  // the NVMe's root port leads to no GPU
  EXPECT_EQ(t.find_gpu("00000000:C3:00.0"), 6);
  EXPECT_EQ(t.find_gpu("0000:09:00.0"), -1);
}

TEST(TopoSysfs, DirectTwoRootComplexes) {
  Topology t = read_sysfs_topology(sysfs_fixture("direct_two_root_complexes"));
  ASSERT_EQ(t.gpus.size(), 8u);
  for (const auto& g : t.gpus) {
    EXPECT_EQ(g.path.bridges.size(), 1u) << g.bus_id;
    EXPECT_EQ(g.class_code, "0x030200");
  }
  EXPECT_EQ(t.gpus[3].path.host_bridge, "pci0000:00");
  EXPECT_EQ(t.gpus[4].path.host_bridge, "pci0000:80");
  EXPECT_EQ(t.gpus[4].path.bridges[0], "0000:80:01.1");
}

TEST(TopoSysfs, OneSwitchFourGpus) {
  Topology t = read_sysfs_topology(sysfs_fixture("one_switch_four_gpus"));
  ASSERT_EQ(t.gpus.size(), 4u);  // the audio functions (0x0403) are not GPUs
  for (const auto& g : t.gpus) {
    EXPECT_EQ(g.path.numa_node, -1);
    EXPECT_EQ(g.path.bridges.size(), 3u);
  }
}

TEST(TopoSysfs, BrokenTreeGivesUnknownsAndReasons) {
  Topology t = read_sysfs_topology(sysfs_fixture("broken"));
  ASSERT_EQ(t.gpus.size(), 2u);
  const GpuInfo& bare = t.gpus[0];
  EXPECT_EQ(bare.bus_id, "0000:01:00.0");
  EXPECT_FALSE(bare.path.numa_node);
  EXPECT_FALSE(bare.device_id);
  EXPECT_FALSE(bare.link.current.speed_gts);
  EXPECT_FALSE(bare.link.max.width);
  ASSERT_TRUE(t.bridges.count("0000:00:01.0"));
  EXPECT_FALSE(t.bridges.at("0000:00:01.0").link.max.speed_gts);

  const GpuInfo& garbage = t.gpus[1];
  EXPECT_FALSE(garbage.path.numa_node);          // "zero"
  EXPECT_FALSE(garbage.link.current.speed_gts);  // "Unknown"
  EXPECT_EQ(garbage.link.current.width, 16);
  EXPECT_FALSE(garbage.link.max.width);  // "banana"
  EXPECT_EQ(garbage.link.max.generation(), 5);

  ASSERT_EQ(t.unplaced.size(), 2u);
  EXPECT_EQ(t.unplaced[0].bus_id, "0000:03:00.0");
  EXPECT_NE(t.unplaced[0].reason.find("no PCI host bridge"), std::string::npos) << t.unplaced[0].reason;
  EXPECT_EQ(t.unplaced[1].bus_id, "0000:06:00.0");
  EXPECT_NE(t.unplaced[1].reason.find("not a link"), std::string::npos) << t.unplaced[1].reason;

  ASSERT_EQ(t.warnings.size(), 2u);
  EXPECT_NE(t.warnings[0].find("0000:04:00.0: link target missing"), std::string::npos) << t.warnings[0];
  EXPECT_NE(t.warnings[1].find("0000:05:00.0: class unreadable"), std::string::npos) << t.warnings[1];
}

TEST(TopoSysfs, MissingRootIsAWarningNotACrash) {
  Topology t = read_sysfs_topology("/nonexistent/arbench/sysfs");
  EXPECT_TRUE(t.gpus.empty());
  ASSERT_EQ(t.warnings.size(), 1u);
  EXPECT_NE(t.warnings[0].find("/nonexistent/arbench/sysfs"), std::string::npos);
}

// What holds for every GPU the reader finds, on any tree: its bus id is already in canonical form
// (normalize_bus_id leaves it as it is), the GPUs come in bus order, each is found by its own id
// and sits under a host bridge.
void expect_well_formed_gpus(const Topology& t, const std::string& where) {
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    const GpuInfo& g = t.gpus[i];
    EXPECT_EQ(normalize_bus_id(g.bus_id), std::optional<std::string>(g.bus_id)) << where << ": " << g.bus_id;
    EXPECT_EQ(t.find_gpu(g.bus_id), int(i)) << where << ": " << g.bus_id;
    EXPECT_EQ(g.path.host_bridge.rfind("pci", 0), 0u) << where << ": " << g.bus_id << " under '" << g.path.host_bridge << "'";
    if (i > 0) {
      EXPECT_LT(t.gpus[i - 1].bus_id, g.bus_id) << where;
    }
  }
}

TEST(TopoSysfs, ThisMachinesSysfsReadsWithoutCrashing) {
  Topology t = read_sysfs_topology("/");  // whatever this machine has; no GPU needed (often none)
  expect_well_formed_gpus(t, "this machine");
}

// The same checks over trees of known devices, so they run (and can fail) on a machine without
// GPUs: every fixture, with the number of GPUs it holds.
TEST(TopoSysfs, EveryFixturesGpusAreWellFormed) {
  const std::pair<const char*, std::size_t> fixtures[] = {
      {"four_switches_two_sockets", 8}, {"direct_two_root_complexes", 8}, {"one_switch_four_gpus", 4},
      {"flat_eight_gpus", 8},           {"split_three_five", 8},          {"two_sockets_eight_gpus", 8},
      {"two_switches_eight_gpus", 8},   {"broken", 2}};
  for (const auto& [name, gpus] : fixtures) {
    const Topology t = read_sysfs_topology(sysfs_fixture(name));
    EXPECT_EQ(t.gpus.size(), gpus) << name;
    expect_well_formed_gpus(t, name);
  }
}

TEST(TopoSysfs, NormalizeBusId) {
  EXPECT_EQ(normalize_bus_id("00000000:41:00.0"), "0000:41:00.0");
  EXPECT_EQ(normalize_bus_id("0000:C1:1F.7"), "0000:c1:1f.7");
  EXPECT_EQ(normalize_bus_id("41:00.0"), "0000:41:00.0");
  EXPECT_EQ(normalize_bus_id("10000:e0:1d.0"), "10000:e0:1d.0");
  EXPECT_FALSE(normalize_bus_id("pci0000:40"));
  EXPECT_FALSE(normalize_bus_id("0000:41:00"));
  EXPECT_FALSE(normalize_bus_id("0000:zz:00.0"));
  EXPECT_FALSE(normalize_bus_id(""));
}

TEST(TopoSysfs, LinkSpeedAndGeneration) {
  EXPECT_EQ(parse_link_speed("32.0 GT/s PCIe"), 32.0);
  EXPECT_EQ(parse_link_speed("8 GT/s"), 8.0);
  EXPECT_FALSE(parse_link_speed("Unknown"));
  EXPECT_FALSE(parse_link_speed(""));
  EXPECT_EQ(pcie_generation(2.5), 1);
  EXPECT_EQ(pcie_generation(16.0), 4);
  EXPECT_EQ(pcie_generation(64.0), 6);
  EXPECT_FALSE(pcie_generation(3.0));
}

}  // namespace
}  // namespace arbench::topo
