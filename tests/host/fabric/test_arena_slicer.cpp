// ArenaSlicer (kernels/fabric/peer/arena_slicer.hpp): where each symmetric buffer lives in the
// arena. Slices are aligned, disjoint, inside their chunk, reused once given back, and the same
// for every process that makes the same calls.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/fabric/peer/arena_slicer.hpp"

using namespace arbench;

TEST(ArenaSlicer, SlicesAreAlignedFirstFitAndFreedSpaceMerges) {
  ArenaSlicer s;
  s.add_chunk(4096);
  const Slice a = *s.take(1), b = *s.take(300), c = *s.take(0);
  EXPECT_EQ(a, (Slice{0, 0, 256}));
  EXPECT_EQ(b, (Slice{0, 256, 512}));
  EXPECT_EQ(c, (Slice{0, 768, 256}));  // a zero-byte buffer still takes a slot
  EXPECT_EQ(s.live_slices(), 3u);
  EXPECT_EQ(s.live_bytes(), 1024u);
  EXPECT_EQ(s.largest_free(), 4096u - 1024u);
  s.give_back(a);
  EXPECT_EQ(*s.take(200), (Slice{0, 0, 256}));  // first fit: the hole a left
  s.give_back(Slice{0, 0, 256});
  s.give_back(b);  // merges with the free range before it: 0 .. 768
  EXPECT_EQ(*s.take(768), (Slice{0, 0, 768}));
  s.give_back(Slice{0, 0, 768});
  s.give_back(c);  // everything free again: one range
  EXPECT_EQ(s.largest_free(), 4096u);
  EXPECT_EQ(s.live_slices(), 0u);
}

TEST(ArenaSlicer, ASliceNeverStraddlesChunksAndTheFirstChunkWithRoomIsUsed) {
  ArenaSlicer s;
  s.add_chunk(1024);
  s.add_chunk(8192);
  EXPECT_EQ(s.capacity(), 9216u);
  EXPECT_EQ(*s.take(2000), (Slice{1, 0, 2048}));  // does not fit chunk 0
  EXPECT_EQ(*s.take(512), (Slice{0, 0, 512}));    // fits chunk 0 again
  EXPECT_FALSE(s.take(8192).has_value());          // 6144 left in chunk 1, 512 in chunk 0
  EXPECT_EQ(*s.take(6144), (Slice{1, 2048, 6144}));
}

TEST(ArenaSlicer, WhatWasNotHandedOutCannotBeGivenBack) {
  ArenaSlicer s;
  s.add_chunk(1024);
  const Slice a = *s.take(256);
  EXPECT_THROW(s.give_back(Slice{0, 256, 256}), std::logic_error);
  EXPECT_THROW(s.give_back(Slice{0, 0, 512}), std::logic_error);  // wrong size
  EXPECT_THROW(s.give_back(Slice{3, 0, 256}), std::logic_error);  // no such chunk
  s.give_back(a);
  EXPECT_THROW(s.give_back(a), std::logic_error);  // twice
  EXPECT_THROW(s.add_chunk(1000), std::logic_error);  // not a multiple of the alignment
}

// Random alloc/free traffic: every live slice is aligned, inside its chunk and disjoint from the
// others; two slicers fed the same calls agree on every slice (how the processes of a run agree
// without talking).
TEST(ArenaSlicer, RandomTrafficKeepsSlicesDisjointAndTwoSlicersAgree) {
  ArenaSlicer a, b;
  for (std::size_t bytes : {std::size_t(64) << 10, std::size_t(16) << 10}) {
    a.add_chunk(bytes);
    b.add_chunk(bytes);
  }
  std::mt19937 rng(7);
  std::vector<Slice> live;
  for (int step = 0; step < 5000; ++step) {
    if (!live.empty() && (rng() % 3 == 0 || live.size() > 40)) {
      const std::size_t i = rng() % live.size();
      a.give_back(live[i]);
      b.give_back(live[i]);
      live.erase(live.begin() + std::ptrdiff_t(i));
      continue;
    }
    const std::size_t bytes = rng() % 5000;
    const auto x = a.take(bytes), y = b.take(bytes);
    ASSERT_EQ(x.has_value(), y.has_value());
    if (!x) continue;
    ASSERT_EQ(*x, *y) << "step " << step;
    ASSERT_EQ(x->offset % kSliceAlignment, 0u);
    ASSERT_GE(x->bytes, bytes);
    ASSERT_LE(x->offset + x->bytes, x->chunk == 0 ? (64u << 10) : (16u << 10));
    for (const Slice& o : live) {
      if (o.chunk != x->chunk) continue;
      ASSERT_TRUE(o.offset + o.bytes <= x->offset || x->offset + x->bytes <= o.offset)
          << slice_text(*x) << " overlaps " << slice_text(o);
    }
    live.push_back(*x);
  }
  EXPECT_EQ(a.live_slices(), live.size());
}
