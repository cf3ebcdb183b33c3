// Every case records its data path (bench/measure/data_path.hpp): the harness's view (host memory,
// one GPU, P2P load/store, NCCL) and, for NCCL, the transport NCCL picks per GPU pair by its own
// rule: P2P up to NCCL_P2P_LEVEL (default PXB), host memory (SHM) beyond. On the fixture trees:
// GPUs behind one switch talk P2P; GPUs on different root ports go through host memory, while the
// custom kernels load and store peer-to-peer, so comparisons across root ports are not like for
// like. Before, no case said which path it measured.
#include <gtest/gtest.h>

#include "kernels/fabric/host/host_fabric.hpp"
#include "measure/data_path.hpp"
#include "tests/host/measure/harness_test_util.hpp"
#include "tests/host/topo/topo_fixtures.hpp"
#include "topo/topology.hpp"

namespace arbench {
namespace {

std::vector<std::vector<topo::Relation>> relations(const std::string& fixture, std::vector<int> gpus) {
  const topo::Topology t = topo::read_sysfs_topology(test::sysfs_fixture(fixture));
  return topo::relation_matrix(t, gpus);
}

TEST(DataPath, NcclFollowsItsP2pLevelOnTheFixtureTrees) {
  EXPECT_EQ(nccl_data_path(relations("one_switch_four_gpus", {0, 1, 2, 3}), {}, false), "NCCL P2P");
  // Two GPUs of one root complex on different root ports (PHB): beyond PXB, through host memory.
  EXPECT_EQ(nccl_data_path(relations("direct_two_root_complexes", {0, 1}), {}, false), "NCCL SHM (through host memory)");
  // Four switches, two per socket: pairs behind one switch P2P, the others through host memory.
  const std::string mixed = nccl_data_path(relations("four_switches_two_sockets", {0, 1, 2, 3}), {}, false);
  EXPECT_NE(mixed.find("NCCL P2P + SHM"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("pairs through host memory"), std::string::npos) << mixed;
}

TEST(DataPath, TheEnvironmentAndTheCpuMoveTheLevel) {
  const auto phb = relations("direct_two_root_complexes", {0, 1});
  EXPECT_EQ(nccl_data_path(phb, {{"NCCL_P2P_LEVEL", "SYS"}}, false), "NCCL P2P");
  EXPECT_EQ(nccl_data_path(phb, {{"NCCL_P2P_LEVEL", "3"}}, false), "NCCL P2P") << "old numbering: 3 is PHB";
  EXPECT_EQ(nccl_data_path(phb, {}, /*amd_at_most_two_gpus=*/true), "NCCL P2P");
  EXPECT_EQ(nccl_data_path(relations("one_switch_four_gpus", {0, 1}), {{"NCCL_P2P_DISABLE", "1"}}, false),
            "NCCL SHM (through host memory)");
  EXPECT_EQ(nccl_p2p_level({{"NCCL_P2P_LEVEL", "bogus"}}, false), nccl_p2p_level({}, false));
}

TEST(DataPath, TheHarnessRecordsThePathOfEveryCase) {
  const Registry reg = testing::host_registry();
  const RunConfig cfg = testing::quick_config();
  FabricCache fabrics = testing::host_fabric_cache();
  Harness h(cfg, Backend::host, reg, fabrics);
  const CaseResult r = h.run(Case{"oneshot-pull", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false});
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.data_path, "host memory (CPU threads)");
  ASSERT_TRUE(r.clock_sync.has_value());
  EXPECT_EQ(r.clock_sync->error_bound_us, 0.0) << "the host's ranks share one clock";
}

}  // namespace
}  // namespace arbench
