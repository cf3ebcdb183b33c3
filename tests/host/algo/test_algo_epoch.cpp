// Epochs and slots near the 2^32 wrap-around; flags compared the way the protocols compare them.
#include <gtest/gtest.h>

#include <cstdint>

#include "arbench/algo/epoch.hpp"
#include "arbench/algo/ll.hpp"

namespace arbench::algo {
namespace {

TEST(AlgoEpoch, ReachedIsWrapSafe) {
  EXPECT_TRUE(epoch_reached(5, 5));
  EXPECT_TRUE(epoch_reached(6, 5));
  EXPECT_FALSE(epoch_reached(4, 5));
  EXPECT_TRUE(epoch_reached(0u, 0xffffffffu));   // one past the wrap
  EXPECT_TRUE(epoch_reached(3u, 0xfffffffeu));   // a few past it
  EXPECT_FALSE(epoch_reached(0xffffffffu, 0u));  // one before
  EXPECT_FALSE(epoch_reached(0xfffffff0u, 2u));
}

TEST(AlgoEpoch, NextWrapsAndSlotsAlternate) {
  std::uint32_t e = 0xfffffffdu;
  int prev_slot = epoch_slot(e);
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t n = next_epoch(e);
    EXPECT_TRUE(epoch_reached(n, e));
    EXPECT_FALSE(epoch_reached(e, n));
    EXPECT_NE(epoch_slot(n), prev_slot) << "slots must alternate across the wrap, at " << n;
    prev_slot = epoch_slot(n);
    e = n;
  }
  EXPECT_EQ(e, 5u);
}

TEST(AlgoEpoch, FillIsJustBeforeStart) {
  EXPECT_EQ(flag_fill(kEpochStart), 0u);  // zero-filled memory needs no initialisation
  for (std::uint32_t start : {1u, 0u, 0xfffffff0u, 0xffffffffu}) {
    EXPECT_FALSE(epoch_reached(flag_fill(start), start)) << start;
    EXPECT_EQ(next_epoch(flag_fill(start)), start);
  }
  // Zero-filled flags would wrongly pass a wait for an epoch "behind" zero: hence the fill.
  EXPECT_TRUE(epoch_reached(0u, 0xfffffff0u));
}

TEST(AlgoLl, LineValidOnlyWithBothFlags) {
  LlLine l = ll_encode(0xdeadbeefu, 0x12345678u, 7u);
  EXPECT_TRUE(ll_valid(l, 7u));
  EXPECT_FALSE(ll_valid(l, 5u));
  EXPECT_EQ(ll_data(l, 0), 0xdeadbeefu);
  EXPECT_EQ(ll_data(l, 1), 0x12345678u);
  l.h[1] = ll_encode(0u, 0u, 5u).h[1];  // second half still from epoch 5
  EXPECT_FALSE(ll_valid(l, 7u));
  EXPECT_EQ(ll_seen(l, 7u), 5u);
  EXPECT_FALSE(ll_valid(ll_fill(flag_fill(0xffffffffu)), 0xffffffffu));
  EXPECT_TRUE(ll_valid(ll_encode(1, 2, 0u), 0u));  // epoch 0 is a valid epoch after the wrap
}

}  // namespace
}  // namespace arbench::algo
