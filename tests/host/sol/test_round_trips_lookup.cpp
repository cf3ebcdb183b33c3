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
