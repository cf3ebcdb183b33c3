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

// What one process saw when the first alloc of its arena was refused (PeerMapRefused).
struct Refused {
  std::string what;
  int user = -1, owner = -1;
  int imports_of_2 = -1;  // how often it imported GPU 2's chunk
  int left = -1;          // its driver's mappings and allocations left after the refusal
};

// Three processes alloc from their arenas, `plant(driver, rank)` having set up a refusal of the
// pair 1 -> 2; every process must fail alike, naming that pair, with nothing left mapped.
template <class Plant>
std::vector<Refused> refused_in_each(Plant plant) {
  ThreadWorlds worlds(3);
  std::vector<Refused> refused(3);
  worlds.run([&](World& w, int rank) {
    FakePeerDriver d(kGranule);
    plant(d, rank);
    auto arena = arena_of(d, w);
    Refused& mine = refused[std::size_t(rank)];
    try {
      (void)arena->alloc(64);
    } catch (const PeerMapRefused& e) {
      mine.what = e.what();
      mine.user = e.user();
      mine.owner = e.owner();
    }
    mine.imports_of_2 = int(std::count(d.calls.begin(), d.calls.end(), "import 2"));
    mine.left = d.live_mappings() + d.live_allocations();
  });
  for (std::size_t r = 0; r < refused.size(); ++r) {
    EXPECT_EQ(refused[r].user, 1) << r;
    EXPECT_EQ(refused[r].owner, 2) << r;
    EXPECT_EQ(refused[r].what, refused[0].what) << r;
    EXPECT_EQ(refused[r].left, 0) << r;
  }
  return refused;
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
  const auto refused = refused_in_each([](FakePeerDriver& d, int rank) {
    if (rank == 1) d.access_refused = {{1, 2}};  // GPU 1 may not map GPU 2's memory
  });
  EXPECT_NE(refused[0].what.find("GPU 1 (rank 1) cannot map the memory of GPU 2 (rank 2)"), std::string::npos)
      << refused[0].what;
}

// Issue 43, item 7: a process asks cudaDeviceCanAccessPeer about the peer's GPU (known by bus id)
// before it imports that peer's chunk, and refuses by name; it does not wait for cuMemSetAccess
// to refuse an imported chunk. A peer GPU it cannot see is left to cuMemSetAccess.
TEST(CudaPeerProviderProcesses, APairWithoutPeerToPeerIsRefusedBeforeTheImport) {
  for (const bool visible : {true, false}) {
    const auto refused = refused_in_each([&](FakePeerDriver& d, int rank) {
      if (rank != 1) return;
      d.no_peer_path = {{1, 2}};    // cudaDeviceCanAccessPeer(1, 2) says no
      d.access_refused = {{1, 2}};  // and so would cuMemSetAccess, after the import
      if (!visible) d.invisible = {2};
    });
    const std::string& what = refused[0].what;
    if (visible) {
      EXPECT_EQ(refused[1].imports_of_2, 0) << "refused before GPU 2's chunk was imported";
      EXPECT_NE(what.find("GPU 1 (rank 1) cannot map the memory of GPU 2 (rank 2): no peer-to-peer path (fake)"),
                std::string::npos)
          << what;
    } else {
      EXPECT_EQ(refused[1].imports_of_2, 1) << "a GPU this process cannot see: cuMemSetAccess decides";
      EXPECT_NE(what.find("cannot map the memory of rank 2"), std::string::npos) << what;
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
