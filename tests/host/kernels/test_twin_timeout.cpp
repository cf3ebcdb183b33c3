// A rank that never arrives: every waiting rank records a timeout and returns within the bound,
// and check_errors() turns it into a CaseError naming rank, block and the missing peer.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "arbench/core/errors.hpp"
#include "tests/host/kernels/ring_twin_harness.hpp"
#include "tests/host/kernels/twin_harness.hpp"
#include "tests/host/text_checks.hpp"
#include "tests/host/thrown.hpp"

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
    SCOPED_TRACE(symm_algo_name(a));
    if (const auto e = test::thrown<CaseError>([&] { v->check_errors(); })) {  // none: no error after a missing rank
      test::expect_contains_all(e->what(), {"rank 0 block 0", "rank 2 never arrived", symm_algo_name(a)});
      EXPECT_EQ(e->exit_code(), kExitFailure);
    }
  }
}

// The bound holds per op, not per wait: a receiver that dawdles 400 ms before each of its 42
// transfers keeps every single wait of its peers under the 0.5 s bound, but the op as a whole
// takes 42 x 0.4 = 16.8 s. The op must fail once its waits have spent 0.5 s (it ends after
// ~1-1.5 s: the slow rank finishes its current dawdle first), not run to the end as it did with a
// bound per wait. The limit is half of what that bug takes: a loaded 2-core machine (TSan suites
// beside) may stretch the right behaviour several-fold and still pass; the bug cannot.
TEST(TwinTimeout, BoundHoldsPerOpNotPerWait) {
  constexpr double kBound = 0.5, kDawdleS = 0.4;
  constexpr int kWorld = 8, kElems = 8 * 8 * 3, kChunkBytes = 16;
  // A ring op: 2 (world - 1) steps, each one segment of kElems / kWorld bf16 in chunks.
  constexpr int kTransfers = 2 * (kWorld - 1) * ((kElems * 2 / kWorld + kChunkBytes - 1) / kChunkBytes);
  static_assert(kTransfers == 42);
  constexpr double kBugTakesS = kTransfers * kDawdleS, kLimitS = kBugTakesS / 2;
  HostFabric fabric(kWorld, kBound);
  RingRun r{DType::bf16, kWorld, kElems, 1, 1, kChunkBytes};  // one channel, one-pack chunks: many transfers
  r.opt.slow_rank = 5;
  r.opt.consume_delay_ns = std::uint64_t(kDawdleS * 1e9);
  std::string error;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run_ring_case(fabric, r, /*report=*/false);
  } catch (const CaseError& e) {
    error = e.what();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(error.find("waited"), std::string::npos) << "no timeout although the op ran " << took << " s: " << error;
  EXPECT_LT(took, kLimitS) << "the op's waits together took longer than one bound (" << kBound
                           << " s) + slack: a bound per wait takes " << kBugTakesS << " s";
}

}  // namespace
}  // namespace arbench::testing
