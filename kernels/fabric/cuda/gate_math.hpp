// The start gate's bookkeeping, host code only so it is tested without a GPU
// (tests/host/fabric/test_gate_math.cpp): which samples are kept, the start skew of a sample,
// and the offsets between GPU clocks that the skew is corrected with.
//
// Every rank's gate kernel stamps the moment it released its rank (%globaltimer, ns) and, when it
// gave up waiting, the token of that sample. The start skew of a sample is the last release
// minus the first; on several GPUs each stamp is first moved onto rank 0's clock with that GPU's
// offset, measured once per fabric by a ping-pong with rank 0 (estimate_clock_offset).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace arbench {

// What one rank's gate kernel left for one sample (host-mapped; written by the GPU).
struct GateRecord {
  std::uint32_t timed_out = 0;  // the token of a sample whose gate gave up, else 0 (or older)
  std::uint32_t token = 0;      // the token of the sample these fields belong to
  std::uint64_t release_ns = 0; // %globaltimer when the rank was released
};

// Start skew of one sample in seconds, or nullopt when it cannot be known: a rank left no stamp
// for `token`, or a clock offset is unknown. offsets_ns[r]: rank r's clock minus rank 0's.
inline std::optional<double> start_skew_s(const std::vector<GateRecord>& recs, std::uint32_t token,
                                          const std::vector<std::optional<std::int64_t>>& offsets_ns) {
  if (recs.empty() || recs.size() != offsets_ns.size()) return std::nullopt;
  std::int64_t lo = 0, hi = 0;
  for (std::size_t r = 0; r < recs.size(); ++r) {
    if (recs[r].token != token || !offsets_ns[r]) return std::nullopt;
    const std::int64_t t = static_cast<std::int64_t>(recs[r].release_ns) - *offsets_ns[r];
    lo = r == 0 ? t : std::min(lo, t);
    hi = r == 0 ? t : std::max(hi, t);
  }
  return static_cast<double>(hi - lo) * 1e-9;
}

// True when some rank's gate gave up on `token`: that rank was released alone, after the
// timeout, so the sample did not start together and is discarded.
inline bool gate_timed_out(const std::vector<GateRecord>& recs, std::uint32_t token) {
  return std::any_of(recs.begin(), recs.end(), [&](const GateRecord& g) { return g.timed_out == token; });
}

// One round of the clock ping-pong between rank 0 and rank r: rank 0 stamps t0 (its clock) and
// writes the ping; rank r stamps t1 (its clock) when the ping arrives and answers at once; rank 0
// stamps t3 when the pong arrives. Zero stamps: the round did not complete.
struct PingRound {
  std::uint64_t t0 = 0, t1 = 0, t3 = 0;
};

// Rank r's clock minus rank 0's, from the round with the shortest round trip (NTP's estimate:
// the ping arrived half a round trip after t0, with an error of at most half that round trip,
// the smallest over the rounds). nullopt when no round completed.
inline std::optional<std::int64_t> estimate_clock_offset(const std::vector<PingRound>& rounds) {
  std::optional<std::int64_t> best;
  std::uint64_t best_rtt = 0;
  for (const PingRound& p : rounds) {
    if (p.t0 == 0 || p.t1 == 0 || p.t3 < p.t0) continue;
    const std::uint64_t rtt = p.t3 - p.t0;
    if (best && rtt >= best_rtt) continue;
    best_rtt = rtt;
    best = static_cast<std::int64_t>(p.t1) - static_cast<std::int64_t>(p.t0 + rtt / 2);
  }
  return best;
}

}  // namespace arbench
