// Issue 43 (items 1, 4, 6, 7) on real GPUs: the functional peer check moves bulk data (copy
// engine and SM stores) through every reported pair; a probe that does not finish within its wait
// marks its pairs broken while the check goes on, reading the other GPUs' memory on streams of its
// own; a fabric whose symmetric memory cannot be set up still gets the check on bare devices and
// keeps its matrix (reaches() follows it); and the cuda provider's driver names GPUs by bus id
// and answers cudaDeviceCanAccessPeer for the multi-process import. Skips below 2 GPUs.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"
#include "kernels/fabric/peer/cuda_driver.hpp"
#include "kernels/fabric/peer/peer_fabric.hpp"

using namespace arbench;

namespace {

// cudaMalloc memory on GPUs 0..n-1 with peer access enabled where CUDA reports it.
class BareMemory final : public RankBuffers {
 public:
  BareMemory(int n, std::size_t bytes, const std::vector<std::vector<int>>& reported) : bytes_(bytes) {
    for (int a = 0; a < n; ++a) {
      cudaSetDevice(a);
      void* p = nullptr;
      EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
      ptrs_.push_back(p);
      for (int b = 0; b < n; ++b)
        if (a != b && reported[std::size_t(a)][std::size_t(b)]) (void)cudaDeviceEnablePeerAccess(b, 0);
      (void)cudaGetLastError();
    }
  }
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return ptrs_.at(std::size_t(rank)); }
  void* peer(int, int peer) const override { return ptrs_.at(std::size_t(peer)); }
  void leak() { ptrs_.clear(); }
  ~BareMemory() override {
    for (std::size_t i = 0; i < ptrs_.size(); ++i) {
      cudaSetDevice(int(i));
      cudaFree(ptrs_[i]);
    }
  }

 private:
  std::size_t bytes_;
  std::vector<void*> ptrs_;
};

std::vector<int> first(int n) {
  std::vector<int> d;
  for (int i = 0; i < n; ++i) d.push_back(i);
  return d;
}

}  // namespace

TEST(PeerCheckFaultsGpu, EveryReportedPairMovesBulkDataIntact) {
  ARB_REQUIRE_GPUS(2);
  const int n = arbench::testing::usable_gpus();
  const auto reported = arbench::testing::peer_access_matrix(n);
  std::string fatal = "(not set)";
  const PeerAccess m = check_device_peer_access(first(n), reported, kPeerCheckBound_s, {}, kPeerBulkBytes, &fatal);
  EXPECT_EQ(fatal, "");
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && reported[std::size_t(a)][std::size_t(b)]) {
        EXPECT_EQ(m.at(a, b).path, PeerPath::ok) << a << " -> " << b << ": " << m.at(a, b).detail;
      }
}

TEST(PeerCheckFaultsGpu, AProbeThatDoesNotFinishMarksItsPairsAndTheCheckGoesOn) {
  ARB_REQUIRE_GPUS(2);
  const auto reported = arbench::testing::peer_access_matrix(2);
  if (const std::string why = arbench::testing::verified_p2p_skip(reported, 2); !why.empty()) GTEST_SKIP() << why;
  auto mem = std::make_unique<BareMemory>(2, peer_probe_bytes(2, kPeerBulkBytes), reported);
  PeerAccess m;
  bool idle = true;
  const auto t0 = std::chrono::steady_clock::now();
  {
    CudaPeerProbe probe(first(2), 0, *mem);
    probe.stall(1, 3.0);  // GPU 1's probe starts 3 s late: past the 0.5 s wait below
    PeerCheckOptions opt;
    opt.bulk_bytes = kPeerBulkBytes;
    opt.finish_s = 0.5;
    EXPECT_NO_THROW(m = check_peer_access(probe, 2, [](int) { return true; }, {}, solo_world(), kPeerCheckBound_s, 3,
                                          "bare", "GPU", opt));
    idle = probe.idle();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 2.5) << "bounded by the wait, not by the stalled probe";
  EXPECT_FALSE(idle);
  EXPECT_EQ(m.at(1, 0).path, PeerPath::broken);
  EXPECT_NE(m.at(1, 0).detail.find("did not finish within 500 ms"), std::string::npos) << m.at(1, 0).detail;
  EXPECT_EQ(m.at(0, 1).path, PeerPath::ok) << "GPU 1's memory read on another stream: " << m.at(0, 1).detail;
  mem->leak();  // GPU 1's probe still runs on it for a while
}

TEST(PeerCheckFaultsGpu, WithoutSymmetricMemoryTheBareCheckIsKeptAndReachesFollowsIt) {
  ARB_REQUIRE_GPUS(2);
  const int n = arbench::testing::usable_gpus();
  const auto reported = arbench::testing::peer_access_matrix(n);
  FabricPeerCheck how;
  how.world = n;
  how.setup_failure = "symmetric memory refused (this test)";
  how.check_bare = [&] { return CheckedPeers{check_device_peer_access(first(n), reported, kPeerCheckBound_s, BrokenPair{0, 1}), true, {}}; };
  const PeerCheckOutcome out = run_fabric_peer_check(how);
  ASSERT_EQ(out.access.n, n);
  EXPECT_EQ(out.symmetric_reason, "symmetric memory refused (this test)");
  if (reported[0][1]) {
    EXPECT_EQ(out.access.at(0, 1).path, PeerPath::broken) << "the planted pair";
    EXPECT_FALSE(peer_reaches(&out.access, 0, 1)) << "CUDA reports it; the check says no";
  }
  // A real fabric on such a box: a fabric whose arena cannot be mapped still has a matrix.
  if (const std::string why = arbench::testing::verified_p2p_skip(reported, n); why.empty())
    GTEST_SKIP() << "every pair has P2P here: the arena maps, so the fabric-level fallback is not exercised";
  const PeerFabric f(n, 5.0);
  EXPECT_NE(f.symmetric_unsupported_reason(), "");
  ASSERT_NE(f.peer_access(), nullptr) << "the bare check's matrix is kept";
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) {
        EXPECT_EQ(f.reaches(a, b), f.peer_access()->at(a, b).path == PeerPath::ok) << a << "->" << b;
      }
}

TEST(PeerCheckFaultsGpu, TheDriverNamesGpusByBusIdAndAnswersForEachPair) {
  ARB_REQUIRE_GPUS(2);
  PeerDriver& d = cuda_driver();
  const int n = arbench::testing::usable_gpus();
  const auto reported = arbench::testing::peer_access_matrix(n);
  for (int g = 0; g < n; ++g) {
    const std::string id = d.bus_id(g);
    EXPECT_FALSE(id.empty()) << g;
    EXPECT_EQ(d.device_of_bus_id(id), g) << id;
    for (int h = 0; h < n; ++h)
      if (g != h) {
        EXPECT_EQ(d.peer_refused(g, h).empty(), reported[std::size_t(g)][std::size_t(h)] != 0) << g << "->" << h;
      }
  }
  EXPECT_EQ(d.device_of_bus_id("0000:ff:1f.7"), -1) << "a GPU this process cannot see";
}
