// The host's steady clock in nanoseconds, shared by the host twins (their marks and wait bounds),
// the host fabrics' arrival skew (--skew) and the phase timeline's resolution figure.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

namespace arbench {

inline std::uint64_t steady_now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Busy-waits `ns` nanoseconds, yielding between reads (ranks often outnumber cores). A sleep
// would be far coarser than the microseconds a skew asks for (timer slack is ~50 µs on Linux).
inline void spin_for_ns(std::uint64_t ns) {
  const std::uint64_t t0 = steady_now_ns();
  while (steady_now_ns() - t0 < ns) std::this_thread::yield();
}

// The smallest non-zero step between back-to-back reads of the clock, in ns: what two marks can
// tell apart (the nominal period, 1 ns, hides the cost of a read).
inline double steady_resolution_ns() {
  std::uint64_t best = UINT64_MAX;
  std::uint64_t prev = steady_now_ns();
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t now = steady_now_ns();
    if (now > prev) best = std::min(best, now - prev);
    prev = now;
  }
  return best == UINT64_MAX ? 0.0 : static_cast<double>(best);
}

}  // namespace arbench
