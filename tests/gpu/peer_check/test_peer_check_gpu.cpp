// The functional peer-to-peer check on real GPUs (kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp): every
// pair CUDA reports moves a pattern both ways through its mapping, on bare devices (what `arbench
// topo` shows) and through the nccl fabric's windows; a pair planted broken (the test seam: its
// writes go to the writer's own memory) is reported-but-broken, symmetric memory turns off with
// the ACS/IOMMU message, the custom kernels skip, and the start gate falls back to the host word.
// Skips below 2 GPUs (and without NCCL for the nccl fabric's half).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/nccl/nccl_fabric.hpp"
#include "kernels/fabric/peer/peer_fabric.hpp"

using namespace arbench;

namespace {

// A fabric of GPUs 0 and 1 that `make` builds, healthy (no pair planted) and with the pair
// planted broken: healthy, the check passes the pair through `method` and the start gate gets its
// device barrier; broken, the pair is named with the ACS/IOMMU message, symmetric memory is off
// (an allocation says why) and the gate falls back to the host word; `also` checks the broken
// fabric further.
template <class Make, class Also>
void expect_planted_pair_turns_symmetric_memory_off(Make make, const std::string& method, Also also) {
  {
    const auto healthy = make(BrokenPair{});
    ASSERT_NE(healthy->peer_access(), nullptr) << healthy->symmetric_unsupported_reason();
    EXPECT_EQ(healthy->peer_access()->at(0, 1).path, PeerPath::ok) << healthy->peer_access()->at(0, 1).detail;
    EXPECT_NE(healthy->peer_access()->method.find(method), std::string::npos) << healthy->peer_access()->method;
    EXPECT_EQ(healthy->symmetric_unsupported_reason(), "");
    EXPECT_NE(healthy->gate_description().find("device barrier"), std::string::npos) << healthy->gate_description();
  }
  const auto broken = make(BrokenPair{0, 1});
  ASSERT_NE(broken->peer_access(), nullptr);
  EXPECT_EQ(broken->peer_access()->at(0, 1).path, PeerPath::broken);
  const std::string why = broken->symmetric_unsupported_reason();
  EXPECT_NE(why.find("GPU 0 -> GPU 1"), std::string::npos) << why;
  EXPECT_NE(why.find("ACS"), std::string::npos) << why;
  EXPECT_NE(broken->gate_description().find("host word only"), std::string::npos) << broken->gate_description();
  EXPECT_THROW(broken->alloc(1024, Placement::symmetric), EnvironmentError);
  also(*broken);
}

}  // namespace

TEST(PeerCheckGpu, EveryReportedPairMovesDataOnBareDevices) {
  ARB_REQUIRE_GPUS(2);
  const int n = arbench::testing::usable_gpus();
  std::vector<int> devices;
  for (int d = 0; d < n; ++d) devices.push_back(d);
  const auto reported = arbench::testing::peer_access_matrix(n);
  const PeerAccess m = check_device_peer_access(devices, reported);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const PeerLink& l = m.at(a, b);
      if (!reported[std::size_t(a)][std::size_t(b)]) {
        EXPECT_EQ(l.path, PeerPath::no_p2p) << a << "->" << b;
        continue;
      }
      EXPECT_EQ(l.path, PeerPath::ok) << "GPU " << a << " -> GPU " << b << ": " << l.detail;
      EXPECT_GT(l.write_us, 0.0);
      EXPECT_LT(l.write_us, 200.0) << "a store and its read-back over PCIe take microseconds";
      EXPECT_GT(l.read_us, 0.0);
    }
  const PeerAccess planted = check_device_peer_access(devices, reported, kPeerCheckBound_s, BrokenPair{0, 1});
  if (reported[0][1]) {
    EXPECT_EQ(planted.at(0, 1).path, PeerPath::broken);
    EXPECT_EQ(planted.at(1, 0).path, PeerPath::broken);
    EXPECT_NE(broken_peer_reason(planted).find("ACS"), std::string::npos);
  }
}

TEST(PeerCheckGpu, APlantedBrokenPairTurnsTheFabricsSymmetricMemoryOff) {
  ARB_REQUIRE_GPUS_AND_NCCL(2);
  const auto reported = arbench::testing::peer_access_matrix(2);
  if (!arbench::testing::verified_p2p_skip(reported, 2).empty())
    GTEST_SKIP() << arbench::testing::verified_p2p_skip(reported, 2);
  auto make = [](BrokenPair planted) {
    return std::make_unique<NcclFabric>(2, 5.0, std::map<std::string, std::string>{}, planted);
  };
  expect_planted_pair_turns_symmetric_memory_off(make, "NCCL symmetric windows", [](const NcclFabric&) {});
}

// Issue 27 item 4: the same check on the cuda provider, through a probe slice of its arena, whose
// mappings a broken pair releases, never to be used.
TEST(PeerCheckGpu, APlantedBrokenPairTurnsTheCudaProvidersSymmetricMemoryOff) {
  ARB_REQUIRE_GPUS(2);
  const auto reported = arbench::testing::peer_access_matrix(2);
  if (!arbench::testing::verified_p2p_skip(reported, 2).empty())
    GTEST_SKIP() << arbench::testing::verified_p2p_skip(reported, 2);
  auto make = [](BrokenPair planted) { return std::make_unique<PeerFabric>(2, 5.0, planted); };
  expect_planted_pair_turns_symmetric_memory_off(make, "arbench's CUDA peer mappings", [](const PeerFabric& broken) {
    EXPECT_EQ(broken.arena(), nullptr) << "a broken pair's mappings are released, never used";
  });
}
