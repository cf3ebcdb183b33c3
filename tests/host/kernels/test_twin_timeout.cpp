// A rank that never arrives: every waiting rank records a timeout and returns within the bound,
// and check_errors() turns it into a CaseError naming rank, block and the missing peer.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "arbench/core/errors.hpp"
#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {
namespace {

TEST(TwinTimeout, MissingRankIsAnErrorNotAHang) {
  constexpr double kBound = 0.2;
  constexpr int kWorld = 4;
  constexpr int kMissing = 2;
  for (SymmAlgo a : {SymmAlgo::oneshot_pull, SymmAlgo::oneshot_push, SymmAlgo::twoshot}) {
    HostFabric fabric(kWorld, kBound);
    Case c;
    c.dtype = DType::bf16;
    c.world = kWorld;
    c.bytes = 8 * 1024 * 3 + 16;  // several blocks
    auto in = fabric.alloc(c.bytes, Placement::local);
    OpBuffers b;
    b.in = in.get();
    b.out = in.get();
    auto v = make_symm_twin(a);
    v->prepare(c, fabric, b, Tuning{});

    const auto t0 = std::chrono::steady_clock::now();
    fabric.run([&](int rank, Stream st) {
      if (rank != kMissing) v->launch(rank, st);
    });
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Each rank stops at its first expired wait: at least one bound, then scheduling slack.
    EXPECT_GE(took, kBound) << symm_algo_name(a) << ": gave up before the bound";
    EXPECT_LT(took, kBound * 4 + kWakeUpSlackS) << symm_algo_name(a);
    try {
      v->check_errors();
      ADD_FAILURE() << symm_algo_name(a) << ": no error after a missing rank";
    } catch (const CaseError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("rank 0 block 0"), std::string::npos) << msg;
      EXPECT_NE(msg.find("rank 2 never arrived"), std::string::npos) << msg;
      EXPECT_NE(msg.find(symm_algo_name(a)), std::string::npos) << msg;
      EXPECT_EQ(e.exit_code(), kExitFailure);
    }
  }
}

}  // namespace
}  // namespace arbench::testing
