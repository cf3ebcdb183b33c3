// The functional peer-to-peer check (kernels/fabric/host/peer_check/peer_check.hpp) on the host fabric, with
// the test seam that plants a broken pair (its peer pointers lead to a sink, as a redirected
// mapping does): the pair is named reported-but-broken with ACS/IOMMU advice, symmetric memory
// turns off for world sizes that include it (every twin is skipped, within milliseconds instead
// of a --timeout per sample), and world sizes without it are untouched. Before the check, such a
// fabric handed the twins the broken pointers and every op waited out its timeout.
#include <gtest/gtest.h>

#include <chrono>

#include "arbench/core/peer_access.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/fabric/host/peer_check/peer_check.hpp"
#include "tests/host/fabric/peer_check/fake_peer_probe.hpp"
#include "measure/harness.hpp"
#include "tests/host/measure/harness_test_util.hpp"

namespace arbench {
namespace {

TEST(PeerCheck, AHealthyHostFabricIsOkEverywhere) {
  HostFabric f(4);
  const PeerAccess* m = f.peer_access();
  ASSERT_NE(m, nullptr);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) EXPECT_EQ(m->at(a, b).path, a == b ? PeerPath::self : PeerPath::ok) << a << "->" << b;
  EXPECT_GE(m->at(0, 1).write_us, 0.0);
  EXPECT_GE(m->at(0, 1).read_us, 0.0);
  EXPECT_EQ(f.symmetric_unsupported_reason(), "");
}

TEST(PeerCheck, APlantedBrokenPairIsNamedAndTurnsSymmetricMemoryOff) {
  HostFabric f(4, 10.0, BrokenPair{1, 2});
  const PeerAccess& m = *f.peer_access();
  EXPECT_EQ(m.at(1, 2).path, PeerPath::broken);
  EXPECT_EQ(m.at(2, 1).path, PeerPath::broken);
  EXPECT_EQ(m.at(0, 1).path, PeerPath::ok);
  EXPECT_EQ(m.at(3, 2).path, PeerPath::ok);
  EXPECT_NE(m.at(1, 2).detail.find("did not arrive"), std::string::npos) << m.at(1, 2).detail;
  const std::string why = f.symmetric_unsupported_reason();
  EXPECT_NE(why.find("rank 1 -> rank 2"), std::string::npos) << why;
  EXPECT_NE(why.find("ACS"), std::string::npos) << why;
  EXPECT_NE(why.find("IOMMU"), std::string::npos) << why;
  EXPECT_NE(why.find("NCCL_P2P_DISABLE"), std::string::npos) << why;
  EXPECT_EQ(broken_peer_reason(m, 2), "") << "ranks 0 and 1 alone reach each other";
}

TEST(PeerCheck, APairOutsideTheWorldLeavesItUntouched) {
  HostFabric f(2, 10.0, BrokenPair{1, 2});
  EXPECT_EQ(f.symmetric_unsupported_reason(), "");
}

// `arbench run` on such a box: the world sizes that include the pair skip every twin with the
// reason, quickly; the others run.
TEST(PeerCheck, TheHarnessSkipsTheWorldSizesThatNeedTheBrokenPair) {
  const Registry reg = testing::host_registry();
  RunConfig cfg = testing::quick_config();
  cfg.timeout_s = 30;  // a case that tried the broken pair would wait this long per sample
  FabricCache fabrics([](Backend, int world, const FabricEnv&) {
    return std::make_unique<HostFabric>(world, 30.0, BrokenPair{1, 2});
  });
  Harness h(cfg, Backend::host, reg, fabrics);
  const auto t0 = std::chrono::steady_clock::now();
  for (const char* v : {"oneshot-pull", "oneshot-push", "twoshot", "ring", "reference"}) {
    const Support four = h.plan(Case{v, Family::allreduce, DType::bf16, 4, 1024, 0, 0, false});
    EXPECT_FALSE(four.ok) << v << " at 4 ranks would use the broken pair";
    EXPECT_NE(four.reason.find("ACS"), std::string::npos) << v << ": " << four.reason;
    EXPECT_TRUE(h.plan(Case{v, Family::allreduce, DType::bf16, 2, 1024, 0, 0, false}).ok) << v << " at 2 ranks";
  }
  EXPECT_TRUE(h.run(Case{"oneshot-pull", Family::allreduce, DType::bf16, 2, 1024, 0, 0, false}).ok);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

// The protocol itself, with a fake probe whose rank 1 writes go nowhere and whose rank 3 reads
// come back all ones (a failed PCIe read); pairs not reported are not tried.
TEST(PeerCheck, TheProtocolNamesWhatWentWrongPerPair) {
  testing::FakePeerProbe probe(4, 0);
  for (int p = 0; p < 4; ++p) probe.words_lost.insert({1, p});
  probe.reads_ones.insert(3);
  std::vector<std::vector<int>> reported(4, std::vector<int>(4, 1));
  reported[0][2] = reported[2][0] = 0;
  const PeerAccess m = check_peer_access(probe, 4, [](int) { return true; }, reported, solo_world(), 0.01, 7,
                                         "fake mapping");
  EXPECT_EQ(m.at(0, 2).path, PeerPath::no_p2p);
  EXPECT_EQ(std::count(probe.tried.begin(), probe.tried.end(), std::make_pair(0, 2)), 0) << "an unreported pair is not tried";
  EXPECT_EQ(m.at(1, 0).path, PeerPath::broken);
  EXPECT_NE(m.at(1, 0).detail.find("did not arrive"), std::string::npos) << m.at(1, 0).detail;
  EXPECT_EQ(m.at(3, 0).path, PeerPath::broken);
  EXPECT_NE(m.at(3, 0).detail.find("0xffffffffffffffff"), std::string::npos) << m.at(3, 0).detail;
  EXPECT_EQ(m.at(0, 1).path, PeerPath::ok);
  EXPECT_DOUBLE_EQ(m.at(0, 1).write_us, 0.9);
  EXPECT_DOUBLE_EQ(m.at(0, 1).read_us, 0.7);
  EXPECT_EQ(m.method, "fake mapping");
}

}  // namespace
}  // namespace arbench
