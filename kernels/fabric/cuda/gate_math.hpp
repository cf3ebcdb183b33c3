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

// Rank r's clock minus rank 0's, and the bound on its error.
struct ClockEstimate {
  std::int64_t offset_ns = 0;
  std::uint64_t error_ns = 0;  // half the shortest round trip (plus a coarse timer's tick)
};

// From the round with the shortest round trip (NTP's estimate: the ping arrived half a round trip
// after t0, with an error of at most half that round trip, the smallest over the rounds). nullopt
// when no round completed.
inline std::optional<ClockEstimate> estimate_clock(const std::vector<PingRound>& rounds) {
  std::optional<ClockEstimate> best;
  std::uint64_t best_rtt = 0;
  for (const PingRound& p : rounds) {
    if (p.t0 == 0 || p.t1 == 0 || p.t3 < p.t0) continue;
    const std::uint64_t rtt = p.t3 - p.t0;
    if (best && rtt >= best_rtt) continue;
    best_rtt = rtt;
    best = ClockEstimate{static_cast<std::int64_t>(p.t1) - static_cast<std::int64_t>(p.t0 + rtt / 2), (rtt + 1) / 2};
  }
  return best;
}

inline std::optional<std::int64_t> estimate_clock_offset(const std::vector<PingRound>& rounds) {
  const auto e = estimate_clock(rounds);
  return e ? std::optional<std::int64_t>(e->offset_ns) : std::nullopt;
}

// One process's part of a sample's start skew when the ranks span processes: the latest release of
// its ranks and minus the earliest, on rank 0's clock, relative to `base_ns` (a reading of rank
// 0's clock every process knows), in ns. The sample's skew is the maximum over the processes of
// the first plus the maximum of the second (one World max of both). nullopt when a stamp or an
// offset is missing.
struct ReleaseExtremes {
  double latest = 0, minus_earliest = 0;
};
inline std::optional<ReleaseExtremes> release_extremes(const std::vector<GateRecord>& recs, std::uint32_t token,
                                                       const std::vector<std::optional<std::int64_t>>& offsets_ns,
                                                       std::uint64_t base_ns) {
  if (recs.empty() || recs.size() != offsets_ns.size()) return std::nullopt;
  ReleaseExtremes e;
  for (std::size_t r = 0; r < recs.size(); ++r) {
    if (recs[r].token != token || !offsets_ns[r]) return std::nullopt;
    const double t = double(static_cast<std::int64_t>(recs[r].release_ns - base_ns) - *offsets_ns[r]);
    e.latest = r == 0 ? t : std::max(e.latest, t);
    e.minus_earliest = r == 0 ? -t : std::max(e.minus_earliest, -t);
  }
  return e;
}

// The device barrier's rounds (start_gate.cu). In one round each rank posts its token to every
// peer and waits for every peer's: the last rank to arrive finds every other token already there
// and leaves at once, while its own posted writes still take one write latency to reach the
// others, so it starts that much early, a bias the sample (the maximum over ranks) absorbs. In a
// second round every rank posts again when it leaves the first, and the last rank's second-round
// tokens come from ranks that left one latency after it: everyone leaves two latencies after the
// last arrival, up to the differences between pairs' latencies.
inline constexpr int kGateRounds = 2;

// A model of the barrier's release times (ns): rank i arrives (its host word seen) at arrive[i];
// a token i posts reaches j latency[i][j] later. Used by the tests to show what `rounds` leaves.
inline std::vector<double> modelled_release_ns(const std::vector<double>& arrive,
                                               const std::vector<std::vector<double>>& latency, int rounds) {
  std::vector<double> post = arrive, leave = arrive;
  for (int k = 0; k < rounds; ++k) {
    for (std::size_t i = 0; i < post.size(); ++i) {
      leave[i] = post[i];
      for (std::size_t j = 0; j < post.size(); ++j)
        if (j != i) leave[i] = std::max(leave[i], post[j] + latency[j][i]);
    }
    post = leave;
  }
  return leave;
}

}  // namespace arbench
