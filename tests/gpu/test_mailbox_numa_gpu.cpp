// The island variants' host-memory mailboxes (Fabric::alloc_host_mapped on the GPU fabrics) sit
// on each rank's GPU's NUMA node: the node sysfs gives for the GPU's PCI device
// (kernels/fabric/host/numa_memory.hpp), checked page by page with move_pages and on the mapping's
// policy with get_mempolicy, after cudaHostRegister pinned them; and the placement the result
// records says the same. Skips without a GPU; a rank whose GPU's node is unknown is checked to
// say so.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.hpp"
#include "kernels/fabric/host/numa_memory.hpp"
#include "kernels/fabric/host/placed_buffers.hpp"
#include "measure/fabric_factory.hpp"

using namespace arbench;

namespace {

std::string bus_id(int device) {
  char id[32] = {};
  EXPECT_EQ(cudaDeviceGetPCIBusId(id, static_cast<int>(sizeof id), device), cudaSuccess);
  return id;
}

std::string setting(const std::vector<std::pair<std::string, std::string>>& kv, const std::string& key) {
  for (const auto& [k, v] : kv)
    if (k == key) return v;
  return "(absent)";
}

void check_placement(Fabric& f) {
  constexpr std::size_t kBytes = 3 * 4096 + 64;  // more than one page
  const auto mailboxes = f.alloc_host_mapped(kBytes);
  const auto placed = placement_of(mailboxes.get());
  ASSERT_FALSE(placed.empty()) << "the GPU fabrics' host-mapped buffers record their placement";
  std::string nodes, wanted;
  for (int r = 0; r < f.world(); ++r) {
    const NumaTarget target = gpu_numa_node("/", bus_id(f.device_of(r)));
    const void* p = mailboxes->local(r);
    const PageNodes where = page_nodes(p, kBytes);
    nodes += (r ? "," : "") + nodes_word(where);
    wanted += (r ? "," : "") + (target.node >= 0 ? std::to_string(target.node) : std::string("?"));
    if (target.node < 0) {
      EXPECT_NE(setting(placed, "mailbox_numa_note").find("NUMA node unknown"), std::string::npos)
          << "rank " << r << ": " << target.unknown;
      continue;
    }
    const RangePolicy pol = range_policy(p);
    if (!pol.error.empty() || !where.error.empty()) {
      // A container may forbid the NUMA calls (seccomp): then the result must say so.
      EXPECT_NE(setting(placed, "mailbox_numa_note"), "(absent)") << pol.error << where.error;
      continue;
    }
    EXPECT_EQ(pol.mode, 1) << "rank " << r << ": MPOL_PREFERRED expected on the mailbox";
    EXPECT_EQ(pol.nodes, 1ull << target.node) << "rank " << r;
    ASSERT_FALSE(where.nodes.empty());
    for (std::size_t i = 0; i < where.nodes.size(); ++i)
      EXPECT_EQ(where.nodes[i], target.node) << "rank " << r << " page " << i << " (GPU " << bus_id(f.device_of(r)) << ")";
  }
  EXPECT_EQ(setting(placed, "mailbox_numa_nodes"), nodes);
  EXPECT_EQ(setting(placed, "mailbox_numa_wanted"), wanted);
  std::printf("mailboxes: nodes %s, wanted %s, note '%s'\n", nodes.c_str(), wanted.c_str(),
              setting(placed, "mailbox_numa_note").c_str());
}

}  // namespace

TEST(MailboxNumaGpu, EveryGpuOfTheBox) {
  ARB_REQUIRE_GPUS(1);
  // arbench's own peer mappings (no NCCL needed); one rank per GPU.
  auto f = make_fabric(Backend::cuda, arbench::testing::usable_gpus(), {}, 10.0, solo_world(), "cuda");
  check_placement(*f);
}

TEST(MailboxNumaGpu, VirtualRanksOnOneGpu) {
  ARB_REQUIRE_GPUS(1);
  auto f = make_fabric(Backend::single_gpu, 4, {}, 10.0);
  check_placement(*f);
}
