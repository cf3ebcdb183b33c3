// CrossLink's clock (kernels/fabric/host/cross_link.hpp): when a transfer starts, and what a
// sender that lost its core is owed. The rule is pure, so these cases are exact; the link's
// effect on measured times is checked against the island model in IslandModelShape.
#include <gtest/gtest.h>

#include "kernels/fabric/host/cross_link.hpp"

namespace arbench::testing {
namespace {

constexpr std::uint64_t kUs = 1000, kMs = 1000 * kUs;
constexpr std::uint64_t kLatency = 200 * kUs;

TEST(CrossLinkClock, DrainedLinkPaysTheLatencyAndABusyOneQueues) {
  const std::uint64_t t0 = 1000 * kMs;
  // Busy until after the issue: queue behind it.
  EXPECT_EQ(CrossLink::start_of(t0 + 5 * kUs, t0, kLatency), t0 + 5 * kUs);
  // Idle for less than one latency: still streaming, starts at once.
  EXPECT_EQ(CrossLink::start_of(t0 - 150 * kUs, t0, kLatency), t0);
  // Idle for longer: a new burst, whose first byte pays the latency.
  EXPECT_EQ(CrossLink::start_of(t0 - 250 * kUs, t0, kLatency), t0 + kLatency);
}

TEST(CrossLinkClock, ASenderBackLateFromItsWaitIsOwedTheLatenessOnItsNextLine) {
  const std::uint64_t arrived = 1000 * kMs;      // the sender's previous line arrived here
  const std::uint64_t back = arrived + 4 * kMs;  // and the scheduler gave its core back a tick later
  SenderLateness s;
  s.returned(back, arrived);
  // Its next line, issued at once (2 us of its own work later), is issued when it would have
  // been: it continues the burst right after the previous line instead of finding the link
  // drained and paying the latency again.
  const std::uint64_t now = back + 2 * kUs;
  EXPECT_EQ(s.owed(now), 4 * kMs);
  EXPECT_EQ(CrossLink::start_of(arrived, now - s.owed(now), kLatency), arrived + 2 * kUs);
  // Without the credit (the link as it was) every such line paid the latency anew: under a
  // build beside it, 64 KB oneshot-push over the 5 MB/s test link took 12.4 s, not 0.1 s.
  EXPECT_EQ(CrossLink::start_of(arrived, now, kLatency), now + kLatency);
}

TEST(CrossLinkClock, NothingIsOwedAfterAnOnTimeReturnOrAWaitForAPeer) {
  const std::uint64_t arrived = 1000 * kMs;
  SenderLateness s;
  s.returned(arrived + 3 * kUs, arrived);  // spun and saw the arrival: on time
  EXPECT_EQ(s.owed(arrived + 4 * kUs), 0u);
  s.returned(arrived + 4 * kMs, arrived);  // late, but then it waited for a peer's flag for 1 ms:
  EXPECT_EQ(s.owed(arrived + 5 * kMs), 0u);  // that wait, not the lateness, delayed this line
  EXPECT_EQ(CrossLink::start_of(arrived, arrived + 5 * kMs, kLatency), arrived + 5 * kMs + kLatency);
}

TEST(CrossLinkClock, TheCreditNeverOverlapsTheTransferInFlight) {
  // Another sender's line is in flight until `busy`; a late sender's credited issue time is
  // earlier, but the link carries one transfer at a time.
  const std::uint64_t busy = 1000 * kMs;
  SenderLateness s;
  s.returned(busy + 1 * kMs, busy - 8 * kMs);
  EXPECT_EQ(CrossLink::start_of(busy, busy + 1 * kMs - s.owed(busy + 1 * kMs), kLatency), busy);
}

}  // namespace
}  // namespace arbench::testing
