// PhaseTimeline: one case's phase timeline (docs/latency-breakdown.md), built from the marks a few
// recorded ops left in every rank's record (arbench/core/phases.hpp).
//
// Per recorded op and rank, the rank's timeline is block 0's marks, except its last mark (exit),
// which is the slowest block's: the block that left last. Over ranks, T[m] is when the last rank
// reached mark m, and t0 the first rank's entry. Then
//   span             = T[exit] - t0                     (first entry to last exit)
//   entry skew       = T[entry] - t0                    (first to last rank's entry)
//   bucket b         = sum of T[m] - T[m-1] over the marks m whose interval counts toward b
//   after last arrival = T[exit] - T[entry]             (the op's time once every rank was in)
// so the five buckets add up to the span exactly, and none is negative while every rank's marks
// are in order. The case reports the median op (by span): its marks, its breakdown, its span and
// its time as the fabric measured it; and, over all recorded ops, the median latency and the
// median latency after the last arrival.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arbench/core/phases.hpp"

namespace arbench {

// The five parts of the console breakdown, in µs; they add up to the span.
struct PhaseBreakdown {
  double entry_skew = 0, staging = 0, wait = 0, reduce = 0, exit_skew = 0;
  double total() const { return entry_skew + staging + wait + reduce + exit_skew; }
};

// One rank of the median op: µs from the first rank's entry, one value per mark: block 0's, with
// the exit of the slowest block (the slowest block's own row beside it). A mark the block did not
// record is reported at the time of the one before.
struct RankTimeline {
  int rank = 0;
  std::vector<double> marks_us;
  int slowest_block = 0;
  std::vector<double> slowest_us;
};

// What one recorded op left: every rank's record (kPhaseRecordWords ns each; empty: a rank this
// process does not drive) and the op's time as the fabric measured it.
struct RecordedOp {
  std::vector<std::vector<std::uint64_t>> records;
  double op_us = 0;
};

struct PhaseTimeline {
  std::vector<std::string> marks;
  std::vector<PhaseBucket> buckets;  // per mark: the bucket of the interval ending there
  std::string clock;                 // "steady_clock" (host twins) or "globaltimer" (GPU kernels)
  double resolution_ns = 0;          // the clock's measured resolution
  bool clocks_aligned = true;        // every rank's marks were moved onto the first rank's clock
  int ops = 0;                       // recorded ops
  int missing_marks = 0;             // marks block 0 of some rank did not record (median op)
  double span_us = 0;                // median op: first entry to last exit
  double op_us = 0;                  // median op: its time as the fabric measured it
  double latency_us = 0;             // median over recorded ops of the fabric-measured time
  double after_last_arrival_us = 0;  // median over recorded ops of T[exit] - T[entry]
  PhaseBreakdown breakdown;          // median op
  std::vector<RankTimeline> ranks;   // median op
};

// The timeline of `ops` (at least one, every rank's record present) for a variant with `marks`.
PhaseTimeline build_timeline(const std::vector<PhaseMark>& marks, const std::vector<RecordedOp>& ops);

// "entry skew · staging · wait for peers · reduce+store · exit skew" values, e.g.
// "0.4 · 1.2 · 3.0 · 0.8 · 0.3 µs".
std::string breakdown_text(const PhaseBreakdown& b);

}  // namespace arbench
