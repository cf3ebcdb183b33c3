// The cuda provider with one "process" per GPU (kernels/fabric/peer/cuda_peer_provider.hpp), the
// processes being threads (tests/host/thread_world.hpp), each with its own fake driver: chunks
// are exported as memfds, passed over the Unix-domain socket, imported and mapped. Every rank
// then reads every peer's memory through its own mapping, and a refusal anywhere fails every
// process alike, naming the pair, with nothing left mapped. tests/mpi does it across processes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "../thread_world.hpp"
#include "fake_peer_driver.hpp"
#include "kernels/fabric/peer/cuda_peer_provider.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"
#include "tests/host/thrown.hpp"

using namespace arbench;
using arbench::testing::FakePeerDriver;
using arbench::testing::ThreadWorlds;

namespace {

constexpr std::size_t kGranule = 64 * 1024;

std::unique_ptr<SymmArena> arena_of(FakePeerDriver& d, World& w) {
  ArenaHooks hooks;
  hooks.zero = [](int, void* p, std::size_t bytes) { std::memset(p, 0, bytes); };
  hooks.idle = [] { return true; };
  return std::make_unique<SymmArena>(
      std::make_unique<CudaPeerProvider>(d, std::vector<int>{w.rank()}, w.rank(), w.size(), w, 5.0), std::move(hooks),
      ArenaRanks{w.rank(), 1, w.size()}, w);
}

// The message of the E that `step` throws in each of n processes ("" where it throws none), each
// process on its own fake driver.
template <class E, class Step>
std::vector<std::string> thrown_in_each(int n, Step step) {
  ThreadWorlds worlds(n);
  std::vector<std::string> what(static_cast<std::size_t>(n));
  worlds.run([&](World& w, int rank) {
    FakePeerDriver d(kGranule);
    what[std::size_t(rank)] = test::thrown_message<E>([&] { step(d, w, rank); });
  });
  return what;
}

}  // namespace

TEST(CudaPeerProviderProcesses, EveryProcessMapsEveryPeersChunk) {
  for (int n : {2, 3, 4}) {
    ThreadWorlds worlds(n);
    worlds.run([&](World& w, int rank) {
      FakePeerDriver d(kGranule);
      auto arena = arena_of(d, w);
      auto a = arena->alloc(100);
      auto b = arena->alloc(3 * kGranule);  // grows: a second chunk, exchanged too
      EXPECT_EQ(arena->chunks(), 2u);
      EXPECT_EQ(a->local((rank + 1) % n), nullptr) << "another process's rank";
      std::memset(b->local(rank), 'A' + rank, 3 * kGranule);
      w.barrier("written");
      for (int p = 0; p < n; ++p) {
        const auto* peer = static_cast<const unsigned char*>(b->peer(rank, p));
        EXPECT_EQ(peer[0], 'A' + p) << "rank " << rank << " reading " << p;
        EXPECT_EQ(peer[3 * kGranule - 1], 'A' + p);
      }
      w.barrier("read");
      // Its own GPU's memory, exported, and each peer's imported (import names the owner's GPU).
      EXPECT_EQ(std::count(d.calls.begin(), d.calls.end(), "export"), 2);
      for (int p = 0; p < n; ++p) {
        if (p == rank) continue;
        EXPECT_EQ(std::count(d.calls.begin(), d.calls.end(), "import " + std::to_string(p)), 2) << p;
      }
      EXPECT_EQ(d.live_mappings(), 2 * n);
      a.reset();
      b.reset();
      arena.reset();
      EXPECT_EQ(d.live_mappings(), 0);
      EXPECT_EQ(d.live_allocations(), 0);
    });
  }
}

TEST(CudaPeerProviderProcesses, ARefusedPairFailsEveryProcessAlikeAndLeavesNothingMapped) {
  ThreadWorlds worlds(3);
  std::vector<std::string> what(3);
  std::vector<int> user(3, -1), owner(3, -1), left(3, -1);
  worlds.run([&](World& w, int rank) {
    FakePeerDriver d(kGranule);
    if (rank == 1) d.access_refused = {{1, 2}};  // GPU 1 may not map GPU 2's memory
    auto arena = arena_of(d, w);
    try {
      (void)arena->alloc(64);
    } catch (const PeerMapRefused& e) {
      what[std::size_t(rank)] = e.what();
      user[std::size_t(rank)] = e.user();
      owner[std::size_t(rank)] = e.owner();
    }
    left[std::size_t(rank)] = d.live_mappings() + d.live_allocations();
  });
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(user[std::size_t(r)], 1) << r;
    EXPECT_EQ(owner[std::size_t(r)], 2) << r;
    EXPECT_EQ(what[std::size_t(r)], what[0]);
    EXPECT_EQ(left[std::size_t(r)], 0) << r;
  }
  EXPECT_NE(what[0].find("GPU 1 (rank 1) cannot map the memory of GPU 2 (rank 2)"), std::string::npos) << what[0];
}

// Issue 43, item 7: a process asks cudaDeviceCanAccessPeer about the peer's GPU (known by bus id)
// before it imports that peer's chunk, and refuses by name; it does not wait for cuMemSetAccess
// to refuse an imported chunk. A peer GPU it cannot see is left to cuMemSetAccess.
TEST(CudaPeerProviderProcesses, APairWithoutPeerToPeerIsRefusedBeforeTheImport) {
  for (const bool visible : {true, false}) {
    ThreadWorlds worlds(3);
    std::vector<std::string> what(3);
    std::vector<int> user(3, -1), owner(3, -1), imports_of_2(3, -1), left(3, -1);
    worlds.run([&](World& w, int rank) {
      FakePeerDriver d(kGranule);
      if (rank == 1) {
        d.no_peer_path = {{1, 2}};    // cudaDeviceCanAccessPeer(1, 2) says no
        d.access_refused = {{1, 2}};  // and so would cuMemSetAccess, after the import
        if (!visible) d.invisible = {2};
      }
      auto arena = arena_of(d, w);
      try {
        (void)arena->alloc(64);
      } catch (const PeerMapRefused& e) {
        what[std::size_t(rank)] = e.what();
        user[std::size_t(rank)] = e.user();
        owner[std::size_t(rank)] = e.owner();
      }
      imports_of_2[std::size_t(rank)] = int(std::count(d.calls.begin(), d.calls.end(), "import 2"));
      left[std::size_t(rank)] = d.live_mappings() + d.live_allocations();
    });
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(user[std::size_t(r)], 1) << r;
      EXPECT_EQ(owner[std::size_t(r)], 2) << r;
      EXPECT_EQ(what[std::size_t(r)], what[0]) << r;
      EXPECT_EQ(left[std::size_t(r)], 0) << r;
    }
    if (visible) {
      EXPECT_EQ(imports_of_2[1], 0) << "refused before GPU 2's chunk was imported";
      EXPECT_NE(what[0].find("GPU 1 (rank 1) cannot map the memory of GPU 2 (rank 2): no peer-to-peer path (fake)"),
                std::string::npos)
          << what[0];
    } else {
      EXPECT_EQ(imports_of_2[1], 1) << "a GPU this process cannot see: cuMemSetAccess decides";
      EXPECT_NE(what[0].find("cannot map the memory of rank 2"), std::string::npos) << what[0];
    }
  }
}

TEST(CudaPeerProviderProcesses, AProcessWhoseGpuCannotExportStopsEveryProcess) {
  const auto what = thrown_in_each<EnvironmentError>(2, [](FakePeerDriver& d, World& w, int rank) {
    if (rank == 1) d.no_fd_export = {1};
    CudaPeerProvider p(d, {rank}, rank, 2, w, 5.0);
  });
  EXPECT_EQ(what[0], what[1]);
  EXPECT_NE(what[0].find("GPU 1 cannot hold the cuda provider's arena"), std::string::npos) << what[0];
}

// The processes slice their own copies of the arena; were their allocations to diverge, a peer
// pointer would land in the wrong buffer. Every symmetric alloc checks that they agree.
TEST(CudaPeerProviderProcesses, ProcessesWhoseAllocationsDivergeFailTheAllocation) {
  const auto what = thrown_in_each<CaseError>(3, [](FakePeerDriver& d, World& w, int rank) {
    auto arena = arena_of(d, w);
    auto same = arena->alloc(256);
    (void)arena->alloc(rank == 1 ? 1024 : 256);  // process 1 asks for another size
  });
  for (int r = 0; r < 3; ++r) EXPECT_EQ(what[std::size_t(r)], what[0]) << r;
  EXPECT_NE(what[0].find("placed a symmetric buffer differently"), std::string::npos) << what[0];
}
