// Case names round-trip through the parser; bandwidth formulas match nccl-tests.
#include <gtest/gtest.h>

#include "arbench/core/case.hpp"

using namespace arbench;

TEST(CaseName, AllreduceFormat) {
  Case c{"oneshot-push", Family::allreduce, DType::bf16, 8, 65536, 0, 0, false};
  EXPECT_EQ(c.name(), "allreduce/oneshot-push/bf16/gpus:8/bytes:65536");
}

TEST(CaseName, FusedFormat) {
  Case c{"fused-oneshot", Family::allreduce_rmsnorm, DType::bf16, 8, 16 * 8192 * 2, 16, 8192, false};
  EXPECT_EQ(c.name(), "allreduce_rmsnorm/fused-oneshot/bf16/gpus:8/tokens:16/hidden:8192");
}

TEST(CaseName, RoundTrips) {
  const Case cases[] = {
      {"nccl", Family::allreduce, DType::fp32, 2, 1024, 0, 0, false},
      {"nccl[ring/ll]", Family::allreduce, DType::fp16, 4, 4096, 0, 0, false},
      {"twoshot", Family::allreduce, DType::bf16, 8, 6, 0, 0, true},
      {"unfused-nccl", Family::allreduce_rmsnorm, DType::fp16, 3, 7176 * 2 * 5, 5, 7176, false},
      {"ring", Family::allreduce, DType::bf16, 8, 1024, 0, 0, false, true},
      {"oneshot-push", Family::allreduce, DType::bf16, 2, 2048, 0, 0, true, true},
      {"fused-oneshot", Family::allreduce_rmsnorm, DType::bf16, 8, 16 * 8192 * 2, 16, 8192, false, true},
  };
  for (const Case& c : cases) {
    std::string why;
    auto back = Case::parse(c.name(), &why);
    ASSERT_TRUE(back.has_value()) << c.name() << ": " << why;
    EXPECT_EQ(*back, c) << c.name();
    EXPECT_EQ(back->name(), c.name());
  }
}

// --cache cold is recorded in the name (after /inplace); the default (hot) adds nothing, so the
// names of results and baselines from before the option existed still match.
TEST(CaseName, ColdCacheSuffixAndHotDefaultUnchanged) {
  Case c{"ring", Family::allreduce, DType::bf16, 8, 1024, 0, 0, false};
  EXPECT_EQ(c.name(), "allreduce/ring/bf16/gpus:8/bytes:1024");
  c.cold_cache = true;
  EXPECT_EQ(c.name(), "allreduce/ring/bf16/gpus:8/bytes:1024/cold");
  c.in_place = true;
  EXPECT_EQ(c.name(), "allreduce/ring/bf16/gpus:8/bytes:1024/inplace/cold");
  EXPECT_FALSE(Case::parse("allreduce/ring/bf16/gpus:8/bytes:1024/cold/inplace").has_value());
  EXPECT_FALSE(Case::parse("allreduce/ring/bf16/gpus:8/bytes:1024/hot").has_value());
}

// --symm-mem all runs a custom kernel on each provider as a case of its own: `/symm:<provider>`
// last; a case without it (every other run) keeps its name.
TEST(CaseName, SymmProviderSuffixRoundTripsAndIsLast) {
  Case c{"oneshot-pull", Family::allreduce, DType::bf16, 4, 1024, 0, 0, true};
  c.cold_cache = true;
  c.symm = "nccl";
  EXPECT_EQ(c.name(), "allreduce/oneshot-pull/bf16/gpus:4/bytes:1024/inplace/cold/symm:nccl");
  std::string why;
  const auto back = Case::parse(c.name(), &why);
  ASSERT_TRUE(back.has_value()) << why;
  EXPECT_EQ(*back, c);
  c.symm = "cuda";
  EXPECT_EQ(Case::parse(c.name())->symm, "cuda");
  EXPECT_FALSE(Case::parse("allreduce/ring/bf16/gpus:8/bytes:1024/symm:auto", &why).has_value());
  EXPECT_NE(why.find("cuda or nccl"), std::string::npos) << why;
  EXPECT_FALSE(Case::parse("allreduce/ring/bf16/gpus:8/bytes:1024/symm:cuda/cold").has_value());
}

TEST(CaseName, RejectsMalformed) {
  for (const char* bad : {"", "allreduce/nccl", "allgather/nccl/bf16/gpus:8/bytes:1",
                          "allreduce/nccl/int8/gpus:8/bytes:1", "allreduce/nccl/bf16/gpus:x/bytes:1",
                          "allreduce/nccl/bf16/gpus:8/bytes:", "allreduce/nccl/bf16/gpus:8/bytes:64/extra",
                          "allreduce_rmsnorm/f/bf16/gpus:8/tokens:1"}) {
    std::string why;
    EXPECT_FALSE(Case::parse(bad, &why).has_value()) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(Bandwidth, MatchesNcclTestsFormulas) {
  // nccl-tests: algbw = S / t; busbw = algbw * 2 (n - 1) / n for all-reduce.
  const std::size_t bytes = 1 << 30;
  const double t = 0.01;
  EXPECT_DOUBLE_EQ(algbw_gbps(bytes, t), double(bytes) / t / 1e9);
  EXPECT_DOUBLE_EQ(busbw_gbps(bytes, t, 8), double(bytes) / t / 1e9 * 14.0 / 8.0);
  EXPECT_DOUBLE_EQ(busbw_gbps(bytes, t, 2), algbw_gbps(bytes, t));
  EXPECT_DOUBLE_EQ(busbw_gbps(bytes, t, 1), 0.0);
  EXPECT_DOUBLE_EQ(algbw_gbps(bytes, 0.0), 0.0);
}
