// The credit protocol is what keeps the ring correct: with a slow receiver, a sender that skips
// the credit wait laps it (a sender can run up to N-1 transfers ahead around the ring, more than
// the kSlots receive slots) and overwrites slots not yet consumed; the receiver detects the
// overwrite (an error record) or the results are wrong. The same run with credits is correct.
// Not a test_twin_* file on purpose: skipping credits is a real data race, which
// ThreadSanitizer would (rightly) report.
#include <gtest/gtest.h>

#include <string>

#include "arbench/core/errors.hpp"
#include "tests/host/kernels/ring_twin_harness.hpp"

namespace arbench::testing {
namespace {

// 8 ranks (N-1 = 7 > kSlots = 4), one-pack chunks (many transfers); rank 5 dawdles before
// consuming each transfer while its sender (rank 4) may run ahead: until the slot is overwritten
// or `delay_ns` passed (ring.hpp's test hook). With credits the sender cannot overwrite, so each
// dawdle lasts the full delay; without them the overwrite ends it, so detection does not depend
// on how the threads happen to be scheduled.
RingRun slow_receiver_run(std::uint64_t delay_ns) {
  RingRun r{DType::bf16, 8, 8 * 8 * 3, 2, 1, 16};
  r.opt.slow_rank = 5;
  r.opt.consume_delay_ns = delay_ns;
  return r;
}

TEST(RingCredits, SlowReceiverWithCreditsIsCorrect) {
  HostFabric fabric(8);
  const RingRun r = slow_receiver_run(2'000'000);
  EXPECT_EQ(run_ring_case(fabric, r), 0u) << describe(r);
}

TEST(RingCredits, SkippingTheCreditWaitIsDetected) {
  static_assert(algo::RingPolicy::kSlots < 8 - 1, "the sender must be able to lap the receiver");
  HostFabric fabric(8, 2.0);
  // Half a second for the sender to lap (it needs 4 transfers, microseconds when scheduled):
  // generous for a loaded runner, and spent only where no lap is possible (the op's last few).
  RingRun r = slow_receiver_run(500'000'000);
  r.opt.skip_credit_wait = true;
  std::string detected;
  std::size_t wrong = 0;
  try {
    wrong = run_ring_case(fabric, r, /*report=*/false);
  } catch (const CaseError& e) {
    detected = e.what();
  }
  EXPECT_TRUE(!detected.empty() || wrong > 0) << "skipping credits went unnoticed: " << describe(r);
  // Rank 5 waits until it is lapped, so the overwrite is what is reported (a rank stalled behind
  // the failed one may also time out, but the overwrite record is reported first).
  EXPECT_NE(detected.find("overwritten"), std::string::npos) << detected;
}

}  // namespace
}  // namespace arbench::testing
