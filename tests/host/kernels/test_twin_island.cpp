// The island variants' twins (include/arbench/algo/island/, kernels/island/): island-oneshot,
// island-twoshot, fused-island-oneshot and fused-island-twoshot against the oracle, for worlds 4, 6 and 8 with islands
// of equal and unequal size, over both cross-island paths (P2P, and pinned host memory when the
// fabric's islands lack P2P), sequential and block-faithful, ops back to back (slots and epochs
// reused) and across the 2^32 wrap. Also: their support rules (one island: skipped with the
// reason; an island without P2P inside: skipped), the cross-island partners (island_map.hpp),
// and a rank that never launches (every waiting rank records the timeout, none writes output).
// Runs under ThreadSanitizer too (ctest label tsan).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/mem_host.hpp"
#include "tests/host/kernels/island_twin_harness.hpp"
#include "tests/host/thrown.hpp"

namespace arbench::testing {
namespace {

constexpr double kTimeoutS = 60.0;

struct Split {
  int world;
  int first;  // ranks in the first island (the rest in the second)
};

// Equal and unequal islands for each world size of the issue (4, 6, 8), and three islands.
const Split kSplits[] = {{4, 2}, {4, 1}, {6, 3}, {6, 2}, {8, 4}, {8, 3}};

std::vector<IslandAlgo> all_algos() {
  return {IslandAlgo::oneshot, IslandAlgo::twoshot, IslandAlgo::fused_oneshot, IslandAlgo::fused_twoshot};
}

IslandRun base_run(IslandAlgo a, const Split& s, bool p2p) {
  IslandRun r;
  r.algo = a;
  r.world = s.world;
  r.islands = two_islands(s.world, s.first);
  r.cross_p2p = p2p;
  // Tails: the last pack partial; the pack count a multiple of neither world, island nor block.
  r.elems = (kTsan ? 3 : 7) * 64 + 5;
  r.tokens = s.world + 1;  // fused: rows not a multiple of the world nor the blocks
  r.hidden = 1011;
  r.ops = 3;
  r.back_to_back = true;
  return r;
}

TEST(TwinIsland, EveryVariantSplitAndPathSequential) {
  for (IslandAlgo a : all_algos())
    for (const Split& s : kSplits)
      for (bool p2p : {true, false})
        for (DType d : kAllDTypes) {
          IslandRun r = base_run(a, s, p2p);
          r.dtype = d;
          r.blocks = 3;
          r.in_place = !is_fused(a) && (s.first + (p2p ? 1 : 0)) % 2 == 1;
          SCOPED_TRACE(describe(r));
          EXPECT_EQ(run_island_case(r, kTimeoutS), 0u);
        }
}

TEST(TwinIsland, BlockFaithfulAndNearWrap) {
  for (IslandAlgo a : all_algos())
    for (const Split& s : kSplits) {
      IslandRun r = base_run(a, s, (s.world + s.first) % 2 == 0);
      r.threads = 4;
      r.blocks = 2;
      r.twin = TwinOptions{2};
      r.opt.start_epoch = 0xfffffffeu;  // 3 ops cross 2^32
      SCOPED_TRACE(describe(r));
      EXPECT_EQ(run_island_case(r, kTimeoutS), 0u);
    }
}

TEST(TwinIsland, ThreeIslandsAndTinyMessages) {
  for (IslandAlgo a : all_algos())
    for (bool p2p : {true, false}) {
      IslandRun r = base_run(a, {8, 3}, p2p);
      r.islands = {0, 0, 1, 1, 1, 2, 2, 2};  // 2 + 3 + 3
      r.elems = 3;                           // one partial pack: most shards empty
      r.tokens = 1;
      r.hidden = 9;
      SCOPED_TRACE(describe(r));
      EXPECT_EQ(run_island_case(r, kTimeoutS), 0u);
    }
  // Non-contiguous islands (ranks interleaved over two switches).
  IslandRun r = base_run(IslandAlgo::twoshot, {4, 2}, false);
  r.islands = {0, 1, 0, 1};
  EXPECT_EQ(run_island_case(r, kTimeoutS), 0u) << describe(r);
}

TEST(TwinIsland, OneIslandIsSkippedWithTheReason) {
  IslandRun r = base_run(IslandAlgo::oneshot, {4, 2}, true);
  r.islands = {0, 0, 0, 0};
  auto fabric = island_fabric(r, kTimeoutS);
  for (IslandAlgo a : all_algos()) {
    r.algo = a;
    auto v = make_island_twin(a);
    const Support s = v->supports_with(island_case(r), *fabric, island_tuning(r));
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("form one island (0-3)"), std::string::npos) << s.reason;
    Tuning none;  // no islands known for the world size at all
    EXPECT_NE(v->supports_with(island_case(r), *fabric, none).reason.find("--islands"), std::string::npos);
  }
}

TEST(TwinIsland, IslandWithoutP2pInsideIsSkipped) {
  // The fabric's islands (0-1, 2-3) lack P2P between them; the variant is told 0-2,3.
  IslandRun r = base_run(IslandAlgo::oneshot, {4, 2}, false);
  auto fabric = island_fabric(r, kTimeoutS);
  r.islands = {0, 0, 0, 1};
  auto v = make_island_twin(IslandAlgo::oneshot);
  const Support s = v->supports_with(island_case(r), *fabric, island_tuning(r));
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("no P2P access"), std::string::npos) << s.reason;
  // The symmetric-memory variants are skipped on such a fabric, the island ones are not.
  EXPECT_NE(fabric->symmetric_unsupported_reason().find("cannot reach"), std::string::npos);
}

TEST(TwinIsland, PathFollowsTheFabric) {
  for (bool p2p : {true, false}) {
    IslandRun r = base_run(IslandAlgo::oneshot, {4, 2}, p2p);
    r.ops = 1;
    auto fabric = island_fabric(r, kTimeoutS);
    auto v = make_island_twin(r.algo);
    EXPECT_EQ(run_island_variant(*fabric, *v, r), 0u);
    EXPECT_EQ(v->cross_path(), p2p ? CrossPath::p2p : CrossPath::host_memory);
    bool found = false;
    for (const auto& [k, val] : v->settings())
      if (k == "cross_path") found = val == (p2p ? "p2p" : "host-memory");
    EXPECT_TRUE(found);
  }
}

// Every rank receives exactly one copy of every other island's partial; with equal islands each
// rank has exactly one partner (rank i of A <-> rank i of B).
TEST(TwinIsland, CrossPartners) {
  for (const Split& s : kSplits) {
    const auto labels = two_islands(s.world, s.first);
    const algo::IslandMap m = algo::make_island_map(labels, s.world);
    std::vector<int> received(static_cast<std::size_t>(s.world), 0);
    for (int r = 0; r < s.world; ++r) {
      const unsigned d = algo::cross_destinations<HostMem>(m, r);
      for (int p = 0; p < s.world; ++p)
        if ((d >> p) & 1u) {
          EXPECT_NE(algo::island_of(m, p), algo::island_of(m, r));
          EXPECT_EQ(algo::cross_source(m, p, algo::island_of(m, r)), r) << "world " << s.world;
          ++received[static_cast<std::size_t>(p)];
        }
      if (s.first * 2 == s.world) {
        EXPECT_EQ(algo::count_ranks(d), 1);
        EXPECT_EQ(d, 1u << ((r + s.first) % s.world));
      }
    }
    for (int p = 0; p < s.world; ++p) EXPECT_EQ(received[static_cast<std::size_t>(p)], 1) << "rank " << p;
  }
  EXPECT_EQ(algo::islands_text({0, 0, 0, 1, 1, 1, 1, 1}), "0-2,3-7");
  EXPECT_EQ(algo::islands_text({5, 9, 5, 9}), "0+2,1+3");
  EXPECT_EQ(algo::islands_text({0, 0, 1, 1, 1, 2, 2, 2}), "0-1,2-4,5-7");
}

// A rank that never launches: every waiting rank records the timeout and no rank writes output
// (a block whose wait expired stops, through block_all), on both paths.
TEST(TwinIsland, MissingRankWritesNothing) {
  for (IslandAlgo a : all_algos())
    for (bool p2p : {true, false})
      for (int threads : {0, 4}) {
        IslandRun r = base_run(a, {4, 1}, p2p);
        r.ops = 1;
        r.threads = threads;
        auto fabric = island_fabric(r, 0.3);
        auto v = make_island_twin(a);
        const Case c = island_case(r);
        const Tuning t = island_tuning(r);
        std::unique_ptr<Workload> work;
        std::unique_ptr<RankBuffers> in, out;
        std::vector<const RankBuffers*> outs;
        if (is_fused(a)) {
          work = make_rmsnorm_workload(c, *fabric, v->buffer_placement(), 7, 1e-6);
          v->prepare(c, *fabric, work->buffers(), t);
          work->fill(*fabric);
          outs = {work->buffers().norm_out, work->buffers().residual_out};
        } else {
          in = fabric->alloc(c.bytes, Placement::local);
          out = fabric->alloc(c.bytes, Placement::local);
          OpBuffers b;
          b.in = in.get();
          b.out = out.get();
          v->prepare(c, *fabric, b, t);
          outs = {out.get()};
        }
        std::vector<std::vector<std::uint8_t>> before;
        for (const RankBuffers* o : outs)
          for (int k = 0; k < r.world; ++k) {
            before.emplace_back(o->bytes());
            fabric->download(k, before.back().data(), o->local(k), o->bytes());
          }
        fabric->run([&](int rank, Stream st) {
          if (rank != 1) v->launch(rank, st);
        });
        EXPECT_THROW(v->check_errors(), CaseError) << describe(r);
        std::size_t i = 0;
        for (const RankBuffers* o : outs)
          for (int k = 0; k < r.world; ++k, ++i) {
            std::vector<std::uint8_t> now(o->bytes());
            fabric->download(k, now.data(), o->local(k), o->bytes());
            EXPECT_EQ(now, before[i]) << describe(r) << ": rank " << k << " wrote output";
          }
      }
}

// The timeout message names the waiting rank and the missing sender (island-twoshot: the
// cross-island flag), so a person can find the lost peer.
TEST(TwinIsland, TimeoutNamesTheCrossIslandSender) {
  IslandRun r = base_run(IslandAlgo::twoshot, {4, 2}, true);
  r.ops = 1;
  auto fabric = island_fabric(r, 0.3);
  auto v = make_island_twin(r.algo);
  const Case c = island_case(r);
  auto in = fabric->alloc(c.bytes, Placement::local);
  OpBuffers b;
  b.in = b.out = in.get();
  v->prepare(c, *fabric, b, island_tuning(r));
  fabric->run([&](int rank, Stream st) {
    if (rank != 2) v->launch(rank, st);  // rank 2: island 1's first rank, rank 0's partner
  });
  const auto e = test::thrown<CaseError>([&] { v->check_errors(); });
  ASSERT_TRUE(e) << "no timeout recorded";
  const std::string what = e->what();
  EXPECT_NE(what.find("island-twoshot: rank 0"), std::string::npos) << what;
  EXPECT_NE(what.find("cross-island flag of rank 2"), std::string::npos) << what;
}

}  // namespace
}  // namespace arbench::testing
