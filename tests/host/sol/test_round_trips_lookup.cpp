// The latency term's count comes from one place (sol/round_trips.hpp): the round-trip table's count
// of the variant's kernel where the table names it, else nothing (the floor then takes the
// schedule's own count and says so). NCCL, the host backend (arch 0) and an unknown architecture
// never get a kernel's count.
#include <gtest/gtest.h>

#include "sol/round_trips.hpp"

#include "arbench/core/round_trips.hpp"

using namespace arbench;
using namespace arbench::sol;

TEST(SolRoundTrips, AListNamesAVariantOnlyExactly) {
  EXPECT_TRUE(listed_in("oneshot-pull,unfused-oneshot", "unfused-oneshot"));
  EXPECT_TRUE(listed_in("ring", "ring"));
  EXPECT_FALSE(listed_in("oneshot-pull,unfused-oneshot", "oneshot"));
  EXPECT_FALSE(listed_in("unfused-*", "unfused-nccl"));  // a pattern names the norm kernel, not NCCL
  EXPECT_FALSE(listed_in("", "ring"));
}

TEST(SolRoundTrips, NcclTheHostAndUnknownArchitecturesHaveNoKernelCount) {
  EXPECT_FALSE(kernel_round_trips("nccl", 8, DType::bf16, 120));
  EXPECT_FALSE(kernel_round_trips("nccl[ring/ll]", 8, DType::bf16, 120));
  EXPECT_FALSE(kernel_round_trips("oneshot-pull", 8, DType::bf16, 0));  // the host backend
  EXPECT_FALSE(kernel_round_trips("oneshot-pull", 8, DType::bf16, 75));
}

TEST(SolRoundTrips, AKernelInTheTableGivesItsOneUnitCount) {
  for (const char* variant : {"oneshot-pull", "twoshot", "ring"}) {
    const std::string kernel = std::string(variant) == "oneshot-pull" ? "oneshot_pull" : variant;
    const KernelRoundTrips* k = find_round_trips(kernel, "bf16", 120);
    ASSERT_NE(k, nullptr) << kernel;
    const auto got = kernel_round_trips(variant, 8, DType::bf16, 120);
    ASSERT_TRUE(got) << variant;
    EXPECT_DOUBLE_EQ(got->per_op, one_unit_round_trips(*k, 8)) << variant;
    EXPECT_NE(got->source.find("round-trip table: " + kernel + ", sm_120"), std::string::npos) << got->source;
  }
}

// The copy-engine variants wait with their streams (cuStreamWaitValue32), which no kernel's code
// shows: their reduce kernel's count (0: own memory only) plus the stream waits of their programs.
TEST(SolRoundTrips, ACopyEngineVariantCountsItsStreamWaits) {
  for (int sm : {90, 120}) {
    const KernelRoundTrips* k = find_round_trips("ce_reduce", "bf16", sm);
    ASSERT_NE(k, nullptr) << sm;
    EXPECT_EQ(one_unit_round_trips(*k, 8), 0);
    const auto two = kernel_round_trips("ce-twoshot", 8, DType::bf16, sm);
    const auto ring = kernel_round_trips("ce-ring[chunk:1M]", 8, DType::bf16, sm);
    ASSERT_TRUE(two && ring);
    EXPECT_DOUBLE_EQ(two->per_op, 2);
    EXPECT_DOUBLE_EQ(ring->per_op, 2 * 7);
    EXPECT_DOUBLE_EQ(kernel_round_trips("ce-ring", 4, DType::bf16, sm)->per_op, 2 * 3);
    EXPECT_NE(ring->source.find("14 stream waits"), std::string::npos) << ring->source;
  }
  EXPECT_EQ(stream_round_trips("ring", 8), 0);  // an SM kernel's waits are all in its code
}
