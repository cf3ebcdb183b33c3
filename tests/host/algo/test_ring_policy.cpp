// Ring schedule, policy and order on the host: every pack is reduced exactly once per rank and
// gathered by every rank, segments fit a slot, the policy's defaults and overrides, order checks.
#include <gtest/gtest.h>

#include <vector>

#include "arbench/algo/ring/ring_order.hpp"
#include "arbench/algo/ring/ring_policy.hpp"
#include "arbench/algo/ring/ring_schedule.hpp"

namespace arbench::algo {
namespace {

// Replays the schedule of every position and checks: each pack of the message is sent exactly
// once per step kind "first" by one rank, reduced once by each other rank, finalised by exactly
// one rank, and stored to output exactly once by every rank; what a rank receives at step s is
// what it sends at step s+1 (the same segment).
TEST(RingSchedule, EveryPackReducedOnceAndGatheredEverywhere) {
  for (int world = 2; world <= 8; ++world)
    for (int channels : {1, 3, 8})
      for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{64}})
        for (std::size_t packs : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{1001}}) {
          const RingGeometry g{packs, world, channels, chunk};
          std::vector<int> added(packs, 0), finals(packs, 0);
          std::vector<std::vector<int>> outputs(static_cast<std::size_t>(world), std::vector<int>(packs, 0));
          for (int ch = 0; ch < channels; ++ch)
            for (std::size_t r = 0; r < ring_rounds(g, ch); ++r)
              for (int pos = 0; pos < world; ++pos)
                for (int s = 0; s < ring_steps(world); ++s) {
                  const Range seg = ring_segment(g, ch, r, ring_send_segment(pos, s, world));
                  ASSERT_LE(seg.size(), chunk);
                  if (s > 0) {
                    ASSERT_EQ(ring_recv_segment(pos, s - 1, world), ring_send_segment(pos, s, world));
                  }
                  const RingStepKind k = ring_step_kind(s, world);
                  for (std::size_t p = seg.begin; p < seg.end; ++p) {
                    if (k != RingStepKind::forward) ++added[p];
                    if (k == RingStepKind::final) ++finals[p];
                    if (k == RingStepKind::final || k == RingStepKind::forward) ++outputs[pos][p];
                  }
                  if (s == ring_steps(world) - 1) {  // the drain after the last step
                    const Range last = ring_segment(g, ch, r, ring_recv_segment(pos, s, world));
                    for (std::size_t p = last.begin; p < last.end; ++p) ++outputs[pos][p];
                  }
                }
          for (std::size_t p = 0; p < packs; ++p) {
            ASSERT_EQ(added[p], world) << "pack " << p;  // every rank's input added once
            ASSERT_EQ(finals[p], 1) << "pack " << p;
            for (int pos = 0; pos < world; ++pos) ASSERT_EQ(outputs[pos][p], 1) << "pack " << p << " pos " << pos;
          }
        }
}

TEST(RingSchedule, TransfersAndSlots) {
  const RingGeometry g{1000, 4, 2, 16};  // 500 packs per channel, 64 per round -> 8 rounds
  EXPECT_EQ(ring_rounds(g, 0), 8u);
  EXPECT_EQ(ring_transfers(g, 1), 8u * 6u);
  EXPECT_EQ(ring_slot(0xffffffffu, 4), 3);
  EXPECT_EQ(ring_slot(0u, 4), 0);  // 2^32 is a multiple of kSlots: slots continue across the wrap
  EXPECT_EQ(ring_transfers(RingGeometry{3, 4, 8, 1}, 5), 0u);  // more channels than packs
}

TEST(RingPolicy, ChannelsGrowWithSizeAndRespectCapsAndOverrides) {
  EXPECT_EQ(RingPolicy::channels(1024, 132, 0), 1);
  EXPECT_EQ(RingPolicy::channels(64u << 10, 132, 0), 1);
  EXPECT_EQ(RingPolicy::channels(256u << 10, 132, 0), 4);
  EXPECT_EQ(RingPolicy::channels(64u << 20, 132, 0), RingPolicy::kDefaultMaxChannels);
  EXPECT_EQ(RingPolicy::channels(64u << 20, 3, 0), 3);  // residency cap (e.g. SMs / ranks per GPU)
  EXPECT_EQ(RingPolicy::channels(1024, 132, 6), 6);     // --ring-channels
  EXPECT_EQ(RingPolicy::channels(1024, 132, 100), RingPolicy::kMaxChannels);
}

TEST(RingPolicy, ChunkFitsOneRoundUpToTheCap) {
  EXPECT_EQ(RingPolicy::chunk_packs(1024, 8, 1, 0), 8u);  // 64 packs / 8 ranks
  EXPECT_EQ(RingPolicy::chunk_packs(16, 8, 1, 0), 1u);
  EXPECT_EQ(RingPolicy::chunk_packs(64u << 20, 8, 8, 0), RingPolicy::kMaxChunkBytes / kPackBytes);
  EXPECT_EQ(RingPolicy::chunk_packs(64u << 20, 8, 8, 100), 7u);  // --ring-chunk, rounded up to packs
  EXPECT_EQ(RingPolicy::chunk_packs(64u << 20, 8, 8, 4096), 256u);
}

TEST(RingOrder, ValidatesPermutationsAndFindsNeighbours) {
  EXPECT_EQ(ring_order_problem({0, 1, 3, 2}, 4), "");
  EXPECT_NE(ring_order_problem({0, 1, 2}, 4).find("names 3 ranks"), std::string::npos);
  EXPECT_NE(ring_order_problem({0, 1, 1, 2}, 4).find("appears twice"), std::string::npos);
  EXPECT_NE(ring_order_problem({0, 1, 2, 7}, 4).find("outside 0..3"), std::string::npos);
  const RingNeighbours nb = ring_neighbours({0, 1, 3, 2}, 3);
  EXPECT_EQ(nb.pos, 2);
  EXPECT_EQ(nb.prev, 1);
  EXPECT_EQ(nb.next, 2);
  EXPECT_EQ(ring_order_text(ring_order_or_default({}, 3)), "0,1,2");
}

TEST(RingOrder, TextRoundTripsAndMalformedTextIsRefused) {
  for (const std::vector<int>& order : {std::vector<int>{0}, {0, 2, 3, 1}, {7, 6, 5, 4, 3, 2, 1, 0}})
    EXPECT_EQ(parse_ring_order_text(ring_order_text(order)), order);
  EXPECT_EQ(parse_ring_order_text("0,1,1"), (std::vector<int>{0, 1, 1}));  // a list; permutation is checked apart
  for (const char* bad : {"", ",", "0,", ",0", "0,,1", "0;1", "0, 1", "x", "1a", "+1"})
    EXPECT_FALSE(parse_ring_order_text(bad)) << bad;
}

}  // namespace
}  // namespace arbench::algo
