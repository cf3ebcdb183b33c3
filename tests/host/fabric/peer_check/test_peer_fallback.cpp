// How a GPU fabric settles its peer paths (kernels/fabric/host/peer_check/peer_fallback.hpp), on the fabric
// seams: the cuda provider's arena on the fake driver (memfd "GPU memory"), the check through it
// on host memory (HostPeerProbe), and the bare-device check on the fake backend. On a box where
// the arena (or NCCL's windows) cannot be mapped, the functional check still runs on bare devices
// and its matrix is kept: a reported pair that does not move data is no path for reaches() (the
// island variants) and is named for the `nccl` guard. Before, such a fabric kept no matrix and
// reaches() trusted cudaDeviceCanAccessPeer alone.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "tests/host/fabric/fake_peer_driver.hpp"
#include "kernels/fabric/host/peer_check/peer_check.hpp"
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"
#include "kernels/fabric/peer/cuda_peer_provider.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"
#include "tests/host/fabric/peer_check/fake_peer_probe.hpp"

namespace arbench {
namespace {

constexpr std::size_t kBulk = 64 * 1024;

// Four GPUs; CUDA reports P2P for every pair but 1 <-> 2 (the driver refuses those too), and the
// reported pair 0 <-> 3 is broken by ACS: its words go nowhere.
struct Box {
  testing::FakePeerDriver driver{64 * 1024};
  std::unique_ptr<SymmArena> arena;
  testing::FakePeerProbe bare{4, kBulk};
  std::vector<std::vector<int>> reported = std::vector<std::vector<int>>(4, std::vector<int>(4, 1));
  int bare_checks = 0, mapped_checks = 0;

  explicit Box(bool refuse) {
    if (refuse) driver.no_peer_path = {{1, 2}, {2, 1}};
    reported[1][2] = reported[2][1] = 0;
    for (int r = 0; r < 4; ++r) reported[std::size_t(r)][std::size_t(r)] = 0;
    bare.words_lost = {{0, 3}, {3, 0}};
    ArenaHooks hooks;
    hooks.zero = [](int, void* p, std::size_t bytes) { std::memset(p, 0, bytes); };
    hooks.idle = [] { return true; };
    arena = std::make_unique<SymmArena>(
        std::make_unique<CudaPeerProvider>(driver, std::vector<int>{0, 1, 2, 3}, 0, 4, solo_world(), 1.0),
        std::move(hooks), ArenaRanks{0, 4, 4}, solo_world());
  }

  FabricPeerCheck how(std::string setup_failure = {}) {
    PeerCheckOptions opt;
    opt.bulk_bytes = kBulk;
    FabricPeerCheck h;
    h.world = 4;
    h.setup_failure = std::move(setup_failure);
    h.map_probe_memory = [this] { return arena->alloc(peer_probe_bytes(4, kBulk)); };
    h.check_mapped = [this, opt](const RankBuffers& mem) {
      ++mapped_checks;
      HostPeerProbe probe(mem);
      return CheckedPeers{check_peer_access(probe, 4, [](int) { return true; }, {}, solo_world(), 0.02, 1,
                                            "the arena", "GPU", opt),
                          true, {}};
    };
    h.check_bare = [this, opt]() mutable {
      ++bare_checks;
      CheckedPeers c;
      opt.fatal = &c.fatal;
      c.access = check_peer_access(bare, 4, [](int) { return true; }, reported, solo_world(), 0.02, 1, "bare devices",
                                   "GPU", opt);
      return c;
    };
    return h;
  }
};

TEST(PeerFallback, AnArenaThatCannotBeMappedStillGetsTheCheckOnBareDevices) {
  Box box(true);
  const PeerCheckOutcome out = run_fabric_peer_check(box.how());
  EXPECT_EQ(box.bare_checks, 1);
  EXPECT_EQ(box.mapped_checks, 0);
  ASSERT_EQ(out.access.n, 4) << "the bare check's matrix is kept";
  EXPECT_EQ(out.access.method, "bare devices");
  EXPECT_NE(out.symmetric_reason.find("cannot map the memory of"), std::string::npos) << out.symmetric_reason;
  EXPECT_EQ(out.access.at(1, 2).path, PeerPath::no_p2p);
  EXPECT_EQ(out.access.at(0, 3).path, PeerPath::broken);
  EXPECT_EQ(out.access.at(0, 1).path, PeerPath::ok);
  // reaches(): only the pairs the check moved data through, never what CUDA reports alone.
  EXPECT_FALSE(peer_reaches(&out.access, 0, 3)) << "reported by CUDA, broken by ACS";
  EXPECT_FALSE(peer_reaches(&out.access, 3, 0));
  EXPECT_FALSE(peer_reaches(&out.access, 1, 2));
  EXPECT_TRUE(peer_reaches(&out.access, 0, 1));
  EXPECT_TRUE(peer_reaches(&out.access, 2, 2));
  // The `nccl` guard reads the same matrix: it names the pair.
  EXPECT_NE(broken_peer_reason(out.access).find("GPU 0 -> GPU 3"), std::string::npos);
}

TEST(PeerFallback, SymmetricMemoryRefusedBeforeTheCheckGetsItOnBareDevicesToo) {
  Box box(false);  // e.g. NCCL refused windows (not every pair is CUDA-P2P), or its version differs
  const PeerCheckOutcome out = run_fabric_peer_check(box.how("NCCL refused the windows"));
  EXPECT_EQ(box.bare_checks, 1);
  EXPECT_EQ(box.arena->chunks(), 0u) << "its memory was not even tried";
  EXPECT_EQ(out.symmetric_reason, "NCCL refused the windows");
  ASSERT_EQ(out.access.n, 4);
  EXPECT_FALSE(peer_reaches(&out.access, 3, 0));
}

TEST(PeerFallback, AMappableArenaIsCheckedThroughItself) {
  Box box(false);
  const PeerCheckOutcome out = run_fabric_peer_check(box.how());
  EXPECT_EQ(box.mapped_checks, 1);
  EXPECT_EQ(box.bare_checks, 0);
  EXPECT_EQ(out.access.method, "the arena");
  EXPECT_EQ(out.symmetric_reason, "");
  EXPECT_TRUE(peer_reaches(&out.access, 0, 3)) << "the arena's mapping moved its data";
  EXPECT_EQ(out.probe_memory, nullptr) << "freed: nothing runs on it";
}

TEST(PeerFallback, NoCheckAtAllTrustsNoPair) {
  Box box(true);
  FabricPeerCheck how = box.how();
  how.check_bare = []() -> CheckedPeers { throw CaseError("cudaMalloc: out of memory (fake)"); };
  const PeerCheckOutcome out = run_fabric_peer_check(how);
  ASSERT_EQ(out.access.n, 4);
  EXPECT_EQ(out.access.at(0, 1).path, PeerPath::broken);
  EXPECT_NE(out.access.at(0, 1).detail.find("could not run: cudaMalloc"), std::string::npos);
  EXPECT_FALSE(peer_reaches(&out.access, 0, 1));
  EXPECT_FALSE(peer_reaches(nullptr, 0, 1)) << "no matrix: no pair is a path";
}

TEST(PeerFallback, AFatalFaultEndsTheRunWithWhatWasMeasured) {
  Box box(true);
  box.bare.faults[0] = "GPU 0 reports cudaErrorIllegalAddress (fake)";
  try {
    (void)run_fabric_peer_check(box.how());
    FAIL() << "expected EnvironmentError";
  } catch (const CaseError&) {
    FAIL() << "a CaseError would only fail the case: the next one rebuilds the fabric";
  } catch (const EnvironmentError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorIllegalAddress"), std::string::npos) << what;
    EXPECT_NE(what.find("stops here with the cases measured so far"), std::string::npos) << what;
    EXPECT_NE(what.find("Xid"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace arbench
