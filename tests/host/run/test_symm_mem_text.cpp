// The banner's symmetric-memory lines (bench/run/symm_mem_text.hpp).
#include <gtest/gtest.h>

#include "run/symm_mem_text.hpp"

using namespace arbench;

TEST(SymmMemText, SaysWhichProviderEachWorldSizeGotAndWhy) {
  EXPECT_TRUE(symm_mem_lines("auto", {}, {}).empty());
  const std::vector<std::string> lines =
      symm_mem_lines("auto", {{{2, ""}, "cuda"}, {{3, ""}, "nccl"}, {{4, ""}, "cuda"}, {{8, ""}, "!no pair"}},
                     {"3 GPUs: symmetric memory from NCCL windows: the cuda provider is unavailable (GPU 2 ...)"});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "symmetric memory (--symm-mem auto): cuda (arbench's CUDA peer mappings) for 2,4 GPUs; nccl (NCCL "
            "windows) for 3 GPUs; none (the custom kernels are skipped) for 8 GPUs");
  EXPECT_EQ(lines[1], "note: 3 GPUs: symmetric memory from NCCL windows: the cuda provider is unavailable (GPU 2 ...)");
  // --symm-mem all: both providers for each world size, each world size once per provider.
  EXPECT_EQ(symm_mem_lines("all", {{{2, "cuda"}, "cuda"}, {{2, "nccl"}, "nccl"}, {{4, "cuda"}, "cuda"}}, {})[0],
            "symmetric memory (--symm-mem all): cuda (arbench's CUDA peer mappings) for 2,4 GPUs; nccl (NCCL "
            "windows) for 2 GPUs");
}
