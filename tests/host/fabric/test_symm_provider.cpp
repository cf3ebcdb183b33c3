// decide_provider (kernels/fabric/peer/symm_provider.hpp): which provider a custom kernel's
// symmetric memory comes from, for every rule of docs/variants.md ("Symmetric memory: two
// providers").
#include <gtest/gtest.h>

#include <string>

#include "kernels/fabric/peer/symm_provider.hpp"

using namespace arbench;

namespace {

// A provider's report that counts how often it was asked.
struct Reporter {
  std::string why_not;
  int asked = 0;
  std::function<ProviderReport()> fn() {
    return [this] {
      ++asked;
      return ProviderReport{why_not};
    };
  }
};

const char* kPair = "GPU 3 (rank 3) cannot map the memory of GPU 5 (rank 5): cuMemSetAccess: CUDA_ERROR_INVALID_DEVICE";

}  // namespace

// NCCL missing, its version not the headers', or its symmetric support refused: the custom
// kernels do not need it, and NCCL is not even asked.
TEST(SymmProvider, TheDefaultIsCudaWhateverNcclSays) {
  for (const char* nccl : {"", "NCCL unavailable: libnccl.so.2: cannot open shared object file",
                           "arbench was built against the NCCL 2.28.9 headers but loaded libnccl 2.29.1",
                           "ncclDevCommCreate failed: unhandled cuda error"}) {
    Reporter cuda, n{nccl};
    const ProviderDecision d = decide_provider(std::nullopt, cuda.fn(), n.fn());
    ASSERT_TRUE(d.provider.has_value()) << nccl;
    EXPECT_EQ(*d.provider, SymmProvider::cuda);
    EXPECT_TRUE(d.note.empty());
    EXPECT_EQ(n.asked, 0) << "NCCL's communicators cost seconds: not created when cuda works";
  }
}

TEST(SymmProvider, ARefusedPairFallsBackToNcclWhenItsWindowsWork) {
  Reporter cuda{kPair}, nccl;
  const ProviderDecision d = decide_provider(std::nullopt, cuda.fn(), nccl.fn());
  ASSERT_TRUE(d.provider.has_value());
  EXPECT_EQ(*d.provider, SymmProvider::nccl);
  EXPECT_NE(d.note.find(kPair), std::string::npos) << d.note;
  EXPECT_EQ(nccl.asked, 1);
}

TEST(SymmProvider, NeitherWorkingSkipsNamingThePairAndNcclsReason) {
  Reporter cuda{kPair}, nccl{"NCCL unavailable: libnccl.so.2 not found"};
  const ProviderDecision d = decide_provider(std::nullopt, cuda.fn(), nccl.fn());
  EXPECT_FALSE(d.provider.has_value());
  EXPECT_NE(d.skip_reason.find("GPU 3 (rank 3) cannot map the memory of GPU 5 (rank 5)"), std::string::npos)
      << d.skip_reason;
  EXPECT_NE(d.skip_reason.find("libnccl.so.2 not found"), std::string::npos) << d.skip_reason;
}

TEST(SymmProvider, AnAskedProviderIsUsedOrSkippedNeverReplaced) {
  {
    Reporter cuda{kPair}, nccl;
    const ProviderDecision d = decide_provider(SymmProvider::cuda, cuda.fn(), nccl.fn());
    EXPECT_FALSE(d.provider.has_value());
    EXPECT_NE(d.skip_reason.find("cuda provider is unavailable"), std::string::npos) << d.skip_reason;
    EXPECT_NE(d.skip_reason.find(kPair), std::string::npos);
    EXPECT_EQ(nccl.asked, 0);
  }
  {
    Reporter cuda, nccl{"ncclDevCommCreate failed"};
    const ProviderDecision d = decide_provider(SymmProvider::nccl, cuda.fn(), nccl.fn());
    EXPECT_FALSE(d.provider.has_value());
    EXPECT_NE(d.skip_reason.find("nccl provider is unavailable: ncclDevCommCreate failed"), std::string::npos);
    EXPECT_EQ(cuda.asked, 0);
  }
  {
    Reporter cuda, nccl;
    EXPECT_EQ(decide_provider(SymmProvider::nccl, cuda.fn(), nccl.fn()).provider, SymmProvider::nccl);
    EXPECT_EQ(decide_provider(SymmProvider::cuda, cuda.fn(), nccl.fn()).provider, SymmProvider::cuda);
  }
}

TEST(SymmProvider, NamesRoundTrip) {
  for (SymmProvider p : {SymmProvider::cuda, SymmProvider::nccl})
    EXPECT_EQ(parse_symm_provider(symm_provider_name(p)), p);
  EXPECT_FALSE(parse_symm_provider("auto").has_value());
  EXPECT_FALSE(parse_symm_provider("CUDA").has_value());
}
