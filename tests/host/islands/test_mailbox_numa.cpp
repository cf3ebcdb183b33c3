// Where the island variants' host-memory mailboxes go (kernels/fabric/host/numa_memory.hpp): each
// GPU's NUMA node read from a sysfs fixture tree with two nodes (and a GPU whose node is -1, one
// whose file is missing, one naming an unlisted node), and pages placed on a node of this machine
// and found there by move_pages. The placement on a GPU box is checked by
// tests/gpu/test_mailbox_numa_gpu.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "kernels/fabric/host/numa_memory.hpp"
#include "tests/host/topo/topo_fixtures.hpp"

namespace arbench {
namespace {

namespace fs = std::filesystem;

TEST(MailboxNuma, EachGpuOnItsSocketsNode) {
  const std::string root = test::sysfs_fixture("two_sockets_with_nodes");
  EXPECT_EQ(gpu_numa_node(root, "0000:03:00.0").node, 0);
  EXPECT_EQ(gpu_numa_node(root, "0000:06:00.0").node, 0);
  // CUDA's and NVML's spellings of the bus id (upper case, 8-digit domain) name the same device.
  EXPECT_EQ(gpu_numa_node(root, "00000000:83:00.0").node, 1);
  const NumaTarget t = gpu_numa_node(root, "0000:85:00.0");
  EXPECT_EQ(t.node, 1);
  EXPECT_TRUE(t.unknown.empty()) << t.unknown;
}

TEST(MailboxNuma, UnknownNodeSaysWhy) {
  const std::string root = test::sysfs_fixture("two_sockets_with_nodes");
  const NumaTarget minus = gpu_numa_node(root, "0000:86:00.0");  // numa_node -1
  EXPECT_LT(minus.node, 0);
  EXPECT_NE(minus.unknown.find("/sys/bus/pci/devices/0000:86:00.0/numa_node is -1"), std::string::npos) << minus.unknown;
  const NumaTarget missing = gpu_numa_node(root, "0000:ee:00.0");
  EXPECT_LT(missing.node, 0);
  EXPECT_NE(missing.unknown.find("missing or empty"), std::string::npos) << missing.unknown;
  // A node the tree does not list (two_sockets_eight_gpus has no system/node folder).
  const NumaTarget unlisted = gpu_numa_node(test::sysfs_fixture("two_sockets_eight_gpus"), "0000:83:00.0");
  EXPECT_LT(unlisted.node, 0);
  EXPECT_NE(unlisted.unknown.find("names NUMA node 1, which /sys/devices/system/node/ does not list"), std::string::npos)
      << unlisted.unknown;
}

// A node of this machine: node0 is there on every Linux with NUMA support.
int a_node_here() { return fs::is_directory("/sys/devices/system/node/node0") ? 0 : -1; }

TEST(MailboxNuma, PagesGoWhereTheyAreSent) {
  const int node = a_node_here();
  if (node < 0) GTEST_SKIP() << "no /sys/devices/system/node/node0 on this machine";
  NumaPages pages(3 * 4096 + 100, NumaTarget{node, {}});
  ASSERT_EQ(pages.bytes() % 4096, 0u);
  ASSERT_GE(pages.bytes(), 3u * 4096 + 100);
  const RangePolicy pol = range_policy(pages.data());
  if (!pages.note().empty() || !pol.error.empty())
    GTEST_SKIP() << "this machine refuses NUMA policies: " << pages.note() << pol.error;
  EXPECT_EQ(pol.mode, 1) << "MPOL_PREFERRED expected";
  EXPECT_EQ(pol.nodes, 1ull << node);
  const PageNodes where = page_nodes(pages.data(), pages.bytes());
  ASSERT_TRUE(where.error.empty()) << where.error;
  ASSERT_EQ(where.nodes.size(), pages.bytes() / 4096);
  for (int n : where.nodes) EXPECT_EQ(n, node);
  EXPECT_EQ(nodes_word(where), std::to_string(node));
  // Zero-filled (the first touch).
  for (std::size_t i = 0; i < pages.bytes(); ++i) ASSERT_EQ(static_cast<const unsigned char*>(pages.data())[i], 0);
}

TEST(MailboxNuma, UnknownNodeKeepsTheDefaultPolicyAndSaysSo) {
  NumaPages pages(100, NumaTarget{-1, "GPU 0000:86:00.0's NUMA node unknown"});
  EXPECT_NE(pages.note().find("GPU 0000:86:00.0's NUMA node unknown; default policy"), std::string::npos) << pages.note();
  const RangePolicy pol = range_policy(pages.data());
  if (pol.error.empty()) {
    EXPECT_EQ(pol.mode, 0) << "MPOL_DEFAULT expected";
  }
}

TEST(MailboxNuma, NodesWord) {
  EXPECT_EQ(nodes_word(PageNodes{{1, 1, 1}, {}}), "1");
  EXPECT_EQ(nodes_word(PageNodes{{0, 1, -2}, {}}), "0+1");
  EXPECT_EQ(nodes_word(PageNodes{{-2, -2}, {}}), "?");
  EXPECT_EQ(nodes_word(PageNodes{{}, "move_pages: Operation not permitted"}), "?");
}

}  // namespace
}  // namespace arbench
