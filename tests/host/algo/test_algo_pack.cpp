// Pack math, partitions, reduction order and the launch policy: pure functions, no threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/reduce.hpp"
#include "arbench/core/oracle.hpp"

namespace arbench::algo {
namespace {

TEST(AlgoPack, CountsAndTails) {
  EXPECT_EQ(elems_per_pack(DType::bf16), 8u);
  EXPECT_EQ(elems_per_pack(DType::fp32), 4u);
  EXPECT_EQ(pack_count(0, DType::bf16), 0u);
  EXPECT_EQ(pack_count(1, DType::bf16), 1u);
  EXPECT_EQ(pack_count(8, DType::bf16), 1u);
  EXPECT_EQ(pack_count(9, DType::bf16), 2u);
  EXPECT_EQ(pack_count(9, DType::fp32), 3u);
  EXPECT_EQ(elems_in_pack(2, 9, DType::fp32), 1u);
  EXPECT_EQ(elems_in_pack(1, 9, DType::fp32), 4u);
  EXPECT_EQ(elems_in_pack(3, 9, DType::fp32), 0u);
}

TEST(AlgoPack, PartialPackTouchesOnlyValidElements) {
  // 11 fp16 elements: pack 1 holds 3; bytes after them must be neither read into the pack nor
  // written.
  std::vector<std::uint16_t> buf(16, 0xabcd);
  for (int i = 0; i < 11; ++i) buf[i] = static_cast<std::uint16_t>(i + 1);
  const Pack p = load_pack<DType::fp16>(buf.data(), 1, 11);
  EXPECT_EQ(p.w[0], 9u | (10u << 16));
  EXPECT_EQ(p.w[1], 11u);
  EXPECT_EQ(p.w[2], 0u);
  EXPECT_EQ(p.w[3], 0u);
  std::vector<std::uint16_t> out(16, 0x7777);
  store_pack<DType::fp16>(out.data(), 1, 11, Pack{{0x11112222u, 0x33334444u, 0x55556666u, 0x7u}});
  EXPECT_EQ(out[8], 0x2222);
  EXPECT_EQ(out[9], 0x1111);
  EXPECT_EQ(out[10], 0x4444);
  EXPECT_EQ(out[11], 0x7777);  // untouched
  EXPECT_EQ(out[7], 0x7777);
}

TEST(AlgoPartition, SplitCoversEverythingOnce) {
  for (std::size_t count : {0u, 1u, 7u, 8u, 9u, 1000u, 65537u}) {
    for (int parts : {1, 2, 3, 7, 8, 64}) {
      std::size_t next = 0;
      for (int i = 0; i < parts; ++i) {
        const Range r = split_range(count, parts, i);
        EXPECT_EQ(r.begin, next);
        EXPECT_LE(r.size(), count / parts + 1);
        next = r.end;
      }
      EXPECT_EQ(next, count);
    }
  }
}

TEST(AlgoPartition, TwoshotBlocksCoverEveryOwnedPackOnce) {
  for (std::size_t packs : {1u, 5u, 16u, 17u, 1001u}) {
    for (int world : {1, 2, 3, 8}) {
      for (int blocks : {1, 3, 4}) {
        std::vector<int> hits(packs, 0);
        for (int owner = 0; owner < world; ++owner)
          for (int b = 0; b < blocks; ++b) {
            const Range r = owned_block_range(packs, world, owner, blocks, b);
            const Range o = owned_range(packs, world, owner);
            EXPECT_GE(r.begin, o.begin);
            EXPECT_LE(r.end, o.end);
            for (std::size_t k = r.begin; k < r.end; ++k) ++hits[k];
          }
        for (std::size_t k = 0; k < packs; ++k) ASSERT_EQ(hits[k], 1) << "pack " << k;
      }
    }
  }
}

TEST(AlgoReduce, FixedRankOrderMatchesSequentialFloatSum) {
  // Values whose fp32 sum depends on the order: in rank order (1 + 1e8) - 1e8 = 0 (the 1 is
  // absorbed); reversed, (-1e8 + 1e8) + 1 = 1, and "own rank first" orders differ too.
  Pack v[3];
  const float vals[3] = {1.0f, 1e8f, -1e8f};
  const float forward = (vals[0] + vals[1]) + vals[2], reversed = (vals[2] + vals[1]) + vals[0];
  ASSERT_NE(forward, reversed);  // the data can tell the orders apart
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 4; ++i) ElemOps<DType::fp32>::set(v[r], i, vals[r]);
  const Pack s = reduce_packs<DType::fp32>(v, 3);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ElemOps<DType::fp32>::get(s, i), forward);
  PackAccumulator<DType::fp32> acc{};
  for (int r = 0; r < 3; ++r) acc.add(v[r], r == 0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ElemOps<DType::fp32>::get(acc.result(), i), forward);
}

TEST(AlgoReduce, AccumulatorMatchesReducePacksBitwise) {
  Pack v[5];
  const float vals[5] = {3.0e7f, 1.25f, -3.0e7f, 0.3f, 7.0f};
  for (int r = 0; r < 5; ++r)
    for (int i = 0; i < 8; ++i) ElemOps<DType::bf16>::set(v[r], i, vals[r] * float(i + 1));
  for (int world = 1; world <= 5; ++world) {
    PackAccumulator<DType::bf16> acc{};
    for (int r = 0; r < world; ++r) acc.add(v[r], r == 0);
    const Pack a = acc.result();
    const Pack b = reduce_packs<DType::bf16>(v, world);
    EXPECT_EQ(std::memcmp(a.w, b.w, 16), 0) << "world " << world;
  }
}

TEST(AlgoReduce, OracleSumsAreExactForEveryDtype) {
  for (DType t : kAllDTypes) {
    const std::size_t n = elems_per_pack(t);
    for (int world = 1; world <= 8; ++world) {
      std::vector<std::vector<std::uint8_t>> in(world, std::vector<std::uint8_t>(16));
      Pack v[8];
      for (int r = 0; r < world; ++r) {
        fill_oracle(in[r].data(), t, n, 42, r);
        std::memcpy(v[r].w, in[r].data(), 16);
      }
      Pack s{};
      if (t == DType::bf16) s = reduce_packs<DType::bf16>(v, world);
      if (t == DType::fp16) s = reduce_packs<DType::fp16>(v, world);
      if (t == DType::fp32) s = reduce_packs<DType::fp32>(v, world);
      const auto want = oracle_sum(t, n, 42, world);
      EXPECT_EQ(count_wrong(s.w, want.data(), t, n), 0u) << dtype_name(t) << " world " << world;
    }
  }
}

TEST(AlgoLaunchPolicy, RespectsResidencyAndOverrides) {
  using P = SymmLaunchPolicy;
  static_assert(P::blocks(1, 132, 8, 0) == 1);
  static_assert(P::blocks(0, 132, 8, 0) == 1);
  static_assert(P::blocks(P::kItemsPerBlock * 3, 132, 1, 0) == 3);
  static_assert(P::blocks(P::kItemsPerBlock * 1000, 132, 8, 0) == 16);  // 132 SMs / 8 ranks
  static_assert(P::blocks(P::kItemsPerBlock * 1000, 188, 1, 0) == kMaxBlocks);
  static_assert(P::blocks(1, 132, 8, 40) == 16);  // --blocks cannot break co-residency
  static_assert(P::blocks(1, 132, 1, 7) == 7);
  static_assert(P::blocks(1, 4, 8, 0) == 1);  // fewer SMs than ranks: still one block
  SUCCEED();
}

}  // namespace
}  // namespace arbench::algo
