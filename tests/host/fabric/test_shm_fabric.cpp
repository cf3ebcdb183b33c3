// ShmFabric (kernels/fabric/host/shm_fabric.hpp) seen from one process. The processes it spans are
// a FakeWorld here; tests/mpi runs it for real under mpirun.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>

#include "arbench/core/errors.hpp"
#include "../fake_world.hpp"
#include "kernels/fabric/host/shm_fabric.hpp"

using namespace arbench;

namespace {

bool in_dev_shm(const std::string& name) { return std::filesystem::exists("/dev/shm" + name); }

}  // namespace

TEST(ShmFabric, TheSegmentHasNoNameOnceEveryProcessMappedIt) {
  FakeWorld w(0, 2);
  ShmSegment seg(w, 1 << 20);
  ASSERT_FALSE(seg.name().empty());
  EXPECT_FALSE(in_dev_shm(seg.name())) << seg.name() << " is still in /dev/shm: it would outlive a killed run";
  seg.ensure(4096);
  seg.base()[4095] = 7;  // mapped and backed
  EXPECT_THROW(seg.ensure(2 << 20), EnvironmentError);  // beyond the reservation: a message, not a SIGBUS
}

TEST(ShmFabric, BuffersAreSlicesEveryProcessAddressesButOnlyItsOwnIsDriven) {
  FakeWorld lead(0, 3);  // node-local process 0: it creates the segment
  ShmFabric f(lead, 1.0);
  EXPECT_EQ(f.world(), 3);
  EXPECT_TRUE(f.drives(0));
  EXPECT_FALSE(f.drives(1));
  EXPECT_EQ(&f.processes(), &lead);
  auto b = f.alloc(100, Placement::symmetric);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b->local(r)) % 256, 0u) << r;
  EXPECT_EQ(b->peer(0, 2), b->local(2));
  EXPECT_EQ(static_cast<char*>(b->local(1)) - static_cast<char*>(b->local(0)), 256);
  const int v = 42;
  f.upload(0, b->local(0), &v, sizeof v);
  EXPECT_THROW(f.upload(1, b->local(1), &v, sizeof v), CaseError);  // rank 1's own process fills it
  int got = 0;
  EXPECT_THROW(f.download(2, &got, b->local(2), sizeof got), CaseError);
  f.download(0, &got, b->local(0), sizeof got);
  EXPECT_EQ(got, 42);
  auto local = f.alloc(8, Placement::local);
  EXPECT_THROW(local->peer(0, 1), CaseError);

  // Once every buffer is released the space is reused, and this process's slice is zeroed again.
  void* first = b->local(0);
  b.reset();
  local.reset();
  auto again = f.alloc(100, Placement::symmetric);
  EXPECT_EQ(again->local(0), first);
  EXPECT_EQ(*static_cast<int*>(again->local(0)), 0);
}

TEST(ShmFabric, OneProcessTimesItsOwnRank) {
  FakeWorld w(0, 1);
  ShmFabric f(w, 1.0);
  int calls = 0;
  f.run([&](int rank, Stream s) {
    EXPECT_EQ(rank, 0);
    EXPECT_EQ(s, nullptr);
    ++calls;
  });
  const IsolatedTimes t = f.time_isolated([&](int, Stream) { ++calls; }, 5);
  EXPECT_EQ(t.samples.size(), 5u);
  EXPECT_EQ(t.start_skew, std::vector<double>(5, 0.0));  // one rank: no spread
  EXPECT_EQ(t.discarded, 0);
  EXPECT_GE(f.time_pipelined([&](int, Stream) { ++calls; }, 3, 2), 0.0);
  EXPECT_EQ(calls, 1 + 5 + 3 * 2);
}

TEST(ShmFabric, SamplesAreTheMaximumOverProcesses) {
  FakeWorld w(0, 1);
  ShmFabric f(w, 1.0);
  // The peers' answers (FakeWorld::max over [durations, release times, minus release times]):
  // sample 1 took 5 s on another process, and sample 2 started there 3 s before this one.
  const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  w.peer_values = {0.0, 5.0, 0.0, 0.0, 0.0, 0.0, -1e12, -1e12, -(now - 3.0)};
  const IsolatedTimes t = f.time_isolated([](int, Stream) {}, 3);
  EXPECT_LT(t.samples[0], 1.0);
  EXPECT_EQ(t.samples[1], 5.0);
  EXPECT_LT(t.start_skew[0], 1.0);
  EXPECT_GT(t.start_skew[2], 2.9);  // this process released at least 3 s after the other
}

TEST(ShmFabric, AMissingPeerFailsTheBatchWithinTheBound) {
  FakeWorld w(0, 2);  // the second process never comes to the start line
  ShmFabric f(w, 0.05);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    f.time_isolated([](int, Stream) {}, 3);
    FAIL() << "no throw";
  } catch (const HangError& e) {
    EXPECT_NE(std::string(e.what()).find("did not reach the start line of round 0"), std::string::npos) << e.what();
    EXPECT_NE(dynamic_cast<const AgreedError*>(&e), nullptr);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
}

TEST(ShmFabric, AnOpsErrorReachesEveryProcess) {
  FakeWorld w(0, 2);
  ShmFabric f(w, 1.0);
  // Another process failed its op; this one passed, and throws that process's error.
  w.peers = {"", error_token(std::make_exception_ptr(CaseError("rank 1: flag 3 never arrived")))};
  try {
    f.run([](int, Stream) {});
    FAIL() << "no throw";
  } catch (const CaseError& e) {
    EXPECT_STREQ(e.what(), "rank 1: flag 3 never arrived");
  }
}
