// The cuda provider and its arena in one process (kernels/fabric/peer/: cuda_peer_provider,
// symm_arena), on the fake driver: memfd-backed "GPU memory", so every peer pointer really
// reaches its peer's memory. What is mapped, what a refused pair says, that buffers are slices
// of one arena, and that release is bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "fake_peer_driver.hpp"
#include "kernels/fabric/peer/cuda_peer_provider.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"
#include "tests/host/thrown.hpp"

using namespace arbench;
using arbench::testing::FakePeerDriver;

namespace {

constexpr std::size_t kGranule = 64 * 1024;

std::vector<int> gpus(int n) {
  std::vector<int> d;
  for (int i = 0; i < n; ++i) d.push_back(i);
  return d;
}

// An arena of `world` ranks on GPUs 0..world-1 of one process, with hooks that record.
struct OneProcess {
  FakePeerDriver driver{kGranule};
  int world;
  bool idle = true;
  std::vector<std::pair<int, std::size_t>> zeroed;  // (rank, bytes) per zero-fill
  std::unique_ptr<SymmArena> arena;

  explicit OneProcess(int w) : world(w) {
    ArenaHooks hooks;
    hooks.zero = [this](int rank, void* p, std::size_t bytes) {
      std::memset(p, 0, bytes);
      zeroed.push_back({rank, bytes});
    };
    hooks.idle = [this] { return idle; };
    arena = std::make_unique<SymmArena>(
        std::make_unique<CudaPeerProvider>(driver, gpus(w), 0, w, solo_world(), 1.0), std::move(hooks),
        ArenaRanks{0, w, w}, solo_world());
  }
};

std::size_t count(const std::vector<std::string>& calls, const std::string& prefix) {
  return std::size_t(std::count_if(calls.begin(), calls.end(), [&](const std::string& c) { return c.rfind(prefix, 0) == 0; }));
}

// An alloc on p is refused: rank `user` cannot map the memory of rank `owner`, in a message that
// holds every piece.
void expect_alloc_refused(OneProcess& p, int user, int owner, const std::vector<std::string>& pieces) {
  const auto e = test::thrown<PeerMapRefused>([&] { (void)p.arena->alloc(64); });
  ASSERT_TRUE(e) << "expected PeerMapRefused";
  EXPECT_EQ(e->user(), user);
  EXPECT_EQ(e->owner(), owner);
  for (const std::string& piece : pieces) EXPECT_NE(std::string(e->what()).find(piece), std::string::npos) << e->what();
}

}  // namespace

TEST(SymmArena, EveryRankReachesEveryPeersCopyAtTheSameOffset) {
  OneProcess p(4);
  auto a = p.arena->alloc(1000);
  auto b = p.arena->alloc(5000);
  // One chunk: per rank, one allocation on its GPU, access for its own GPU and the 3 others.
  EXPECT_EQ(p.arena->chunks(), 1u);
  EXPECT_EQ(count(p.driver.calls, "create"), 4u);
  EXPECT_EQ(count(p.driver.calls, "access"), 16u);
  EXPECT_EQ(p.driver.live_mappings(), 4);
  for (int r = 0; r < 4; ++r) {
    for (int q = 0; q < 4; ++q) EXPECT_EQ(b->peer(r, q), b->local(q)) << "one process: one address per buffer";
    EXPECT_EQ(static_cast<char*>(b->local(r)) - static_cast<char*>(a->local(r)), 1024) << "slices of one chunk";
    std::memset(b->local(r), 0x10 + r, 5000);
  }
  for (int r = 0; r < 4; ++r)
    for (int q = 0; q < 4; ++q) EXPECT_EQ(static_cast<unsigned char*>(b->peer(r, q))[4999], 0x10 + q);
  // Zero-filled on every rank, slice by slice.
  EXPECT_EQ(p.zeroed.size(), 8u);
  EXPECT_EQ(p.zeroed.back(), (std::pair<int, std::size_t>{3, 5120}));
  const PeerTable t = b->table(2, 4);
  EXPECT_EQ(t.ptr[1], b->local(1));
  EXPECT_THROW(b->peer(0, 4), CaseError);
}

TEST(SymmArena, ReserveMapsOneChunkForTheLargestCaseAndCasesReuseIt) {
  OneProcess p(2);
  auto flags = p.arena->alloc(32);  // the start gate's, for the fabric's lifetime
  const std::size_t largest = slice_bytes(3 * kGranule) + slice_bytes(100) + slice_bytes(kGranule);
  p.arena->reserve(largest);
  EXPECT_EQ(p.arena->chunks(), 2u);
  EXPECT_EQ(p.arena->capacity(), kGranule + 5 * kGranule);  // the largest case, rounded to the granularity
  for (int c = 0; c < 5; ++c) {  // cases of every size up to the largest: no more mapping
    auto in = p.arena->alloc((c + 1) * kGranule * 3 / 5);
    auto scratch = p.arena->alloc(100);
    auto out = p.arena->alloc(kGranule);
  }
  EXPECT_EQ(p.arena->chunks(), 2u);
  EXPECT_EQ(count(p.driver.calls, "create"), 4u);
  p.arena->reserve(largest);  // already has room: nothing mapped
  EXPECT_EQ(p.arena->chunks(), 2u);
  EXPECT_EQ(p.arena->live_buffers(), 1u);
}

TEST(SymmArena, ABufferThatDoesNotFitGrowsTheArenaByAChunk) {
  OneProcess p(2);
  auto a = p.arena->alloc(10);
  EXPECT_EQ(p.arena->capacity(), kGranule);
  auto big = p.arena->alloc(kGranule + 1);
  EXPECT_EQ(p.arena->chunks(), 2u);
  EXPECT_EQ(p.arena->capacity(), kGranule + 2 * kGranule);
  EXPECT_EQ(static_cast<ArenaBuffers&>(*big).slice().chunk, 1u);
  EXPECT_EQ(p.arena->describe(), "cuda arena, 2 chunks, 0.2 MiB per rank");
}

TEST(SymmArena, APairWithoutAPeerPathIsRefusedByNameAndNothingStaysMapped) {
  OneProcess p(4);
  p.driver.no_peer_path = {{3, 1}};
  expect_alloc_refused(p, 3, 1, {"GPU 3 (rank 3) cannot map the memory of GPU 1 (rank 1)", "no peer-to-peer path"});
  EXPECT_EQ(p.driver.live_allocations(), 0);
  EXPECT_EQ(p.driver.live_reservations(), 0);
  EXPECT_EQ(p.driver.live_mappings(), 0);
  EXPECT_EQ(p.arena->chunks(), 0u);
}

TEST(SymmArena, AnAccessTheDriverRefusesNamesThePairToo) {
  OneProcess p(3);
  p.driver.access_refused = {{0, 2}};
  expect_alloc_refused(p, 0, 2, {"cuMemSetAccess"});
  EXPECT_EQ(p.driver.live_allocations(), 0);
}

TEST(SymmArena, AGrowthThatFailsKeepsTheEarlierChunksUsable) {
  OneProcess p(2);
  auto a = p.arena->alloc(64);
  p.driver.creates_left = 1;  // rank 0's next chunk is created, rank 1's is not
  EXPECT_THROW((void)p.arena->alloc(2 * kGranule), CaseError);
  EXPECT_EQ(p.arena->chunks(), 1u);
  EXPECT_EQ(p.driver.live_allocations(), 2);  // the failed chunk's rank-0 half was released
  auto b = p.arena->alloc(64);
  EXPECT_EQ(static_cast<ArenaBuffers&>(*b).slice().chunk, 0u);
}

TEST(SymmArena, AGpuWithoutTheVirtualMemoryApiIsAnEnvironmentProblem) {
  FakePeerDriver d(kGranule);
  d.no_vmm = {1};
  try {
    CudaPeerProvider provider(d, gpus(2), 0, 2, solo_world(), 1.0);
    FAIL();
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU 1 cannot hold the cuda provider's arena"), std::string::npos) << e.what();
  }
}

// Released in reverse, each mapping unmapped before its addresses are freed and its memory
// released; only when the streams are idle and every buffer was given back.
TEST(SymmArena, ReleaseIsOrderedAndOnlyWhenNothingCanTouchTheArena) {
  {
    OneProcess p(2);
    { auto a = p.arena->alloc(64); }
    const std::size_t before = p.driver.calls.size();
    p.arena.reset();
    const std::vector<std::string> tail(p.driver.calls.begin() + std::ptrdiff_t(before), p.driver.calls.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"unmap", "free", "release", "unmap", "free", "release"}));
    EXPECT_EQ(p.driver.live_allocations(), 0);
    EXPECT_EQ(p.driver.live_reservations(), 0);
  }
  {
    OneProcess p(2);
    { auto a = p.arena->alloc(64); }
    p.idle = false;  // a stream still busy after the bound
    p.arena.reset();
    EXPECT_EQ(p.driver.live_mappings(), 2) << "memory a kernel may still touch must stay mapped";
  }
  {
    OneProcess p(2);
    auto leaked = p.arena->alloc(64).release();  // a buffer never given back (a leaked start gate)
    p.arena.reset();
    EXPECT_EQ(p.driver.live_mappings(), 2);
    (void)leaked;
  }
}

TEST(SymmArena, ASliceIsReusedOnlyOnceTheStreamsAreIdle) {
  OneProcess p(2);
  void* first = nullptr;
  {
    auto a = p.arena->alloc(64);
    first = a->local(0);
    p.idle = false;  // the buffer dies while a stream is busy: its slice is not given back
  }
  p.idle = true;
  auto b = p.arena->alloc(64);
  EXPECT_NE(b->local(0), first);
  EXPECT_EQ(p.arena->live_buffers(), 2u);
}
