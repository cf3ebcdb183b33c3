// Ring schedule: which packs every rank sends, receives and reduces at each step of the native
// ring all-reduce (kernel: kernels/ring/ring.cu; twin: kernels/ring/ring_twin.cpp; protocol: ring.hpp).
//
// Geometry, the same on every rank (so every rank runs the same number of transfers):
//   - channels: the message's packs are cut into C contiguous channel ranges
//     (split_range(packs, C, ch)); channel ch is an independent ring run by block ch of every
//     rank, on its own slots, flags and credits.
//   - rounds: a channel range is processed N x K packs at a time (K = chunk packs); round r
//     covers [r*N*K, min((r+1)*N*K, channel packs)). The last round may be short.
//   - segments: a round is cut into N balanced segments (split_within), at most K packs each;
//     a segment is what travels in one transfer (one receive slot).
//   - steps: a round has 2(N-1) steps; at step s the rank at ring position p sends segment
//     (p - s) mod N to the next rank and receives segment (p - 1 - s) mod N from the previous.
//     Steps 0..N-2 are the reduce-scatter, N-1..2N-3 the all-gather.
// What a step sends (position p, step s):
//   s == 0       own input                                  (starts the partial sum)
//   1 <= s < N-1 received partial of step s-1 + own input    (adds one rank)
//   s == N-1     received partial + own input = the final sum of segment p+1; also stored to
//                own output (p owns segment p+1)
//   s >= N       the final sum received at step s-1, forwarded verbatim; also stored to output
// After the last step the final sum received at step 2N-3 is only stored to output.
// Reduction order (documented because results must be reproducible): segment j starts at ring
// position j and travels j, j+1, ..., j+N-1 (mod N); each hop adds in fp32 as
// float(partial) + float(own) and rounds once to the dtype (the wire carries the dtype, so the
// ring moves exactly 2(N-1)/N of the message per rank). The final value is computed once, by
// the segment's owner, and every rank stores those exact bits, so all ranks' results are
// bitwise identical. With the oracle inputs (small integers) every order is exact.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arbench/algo/partition.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

struct RingGeometry {
  std::size_t packs = 0;        // whole message
  int world = 1;                // ranks in the ring
  int channels = 1;             // independent rings
  std::size_t chunk_packs = 1;  // K: most packs one transfer carries (one slot)
};

ARB_HD_CONSTEXPR int ring_steps(int world) { return 2 * (world - 1); }

ARB_HD_CONSTEXPR int ring_mod(int x, int world) { return ((x % world) + world) % world; }

ARB_HD_CONSTEXPR Range ring_channel_range(const RingGeometry& g, int channel) {
  return split_range(g.packs, g.channels, channel);
}

ARB_HD_CONSTEXPR std::size_t ring_round_packs(const RingGeometry& g) {
  return g.chunk_packs * static_cast<std::size_t>(g.world);
}

ARB_HD_CONSTEXPR std::size_t ring_rounds(const RingGeometry& g, int channel) {
  const std::size_t n = ring_channel_range(g, channel).size();
  const std::size_t per = ring_round_packs(g);
  return (n + per - 1) / per;
}

// Transfers one rank sends (and receives) on `channel` in one op: every step of every round.
ARB_HD_CONSTEXPR std::size_t ring_transfers(const RingGeometry& g, int channel) {
  return ring_rounds(g, channel) * static_cast<std::size_t>(ring_steps(g.world));
}

ARB_HD_CONSTEXPR Range ring_round_range(const RingGeometry& g, int channel, std::size_t round) {
  const Range ch = ring_channel_range(g, channel);
  const std::size_t begin = ch.begin + round * ring_round_packs(g);
  const std::size_t end = begin + ring_round_packs(g);
  return Range{begin, end < ch.end ? end : ch.end};
}

// Segment `seg` of a round: at most chunk_packs packs.
ARB_HD_CONSTEXPR Range ring_segment(const RingGeometry& g, int channel, std::size_t round, int seg) {
  return split_within(ring_round_range(g, channel, round), g.world, seg);
}

ARB_HD_CONSTEXPR int ring_send_segment(int pos, int step, int world) { return ring_mod(pos - step, world); }
ARB_HD_CONSTEXPR int ring_recv_segment(int pos, int step, int world) {
  return ring_mod(pos - 1 - step, world);
}

// How the packs sent at `step` are made (see the table above).
enum class RingStepKind : int {
  first = 0,    // own input
  reduce = 1,   // received partial + own input
  final = 2,    // received partial + own input = final sum; also to own output
  forward = 3,  // received final sum, forwarded; also to own output
};

ARB_HD_CONSTEXPR RingStepKind ring_step_kind(int step, int world) {
  return step == 0           ? RingStepKind::first
         : step < world - 1  ? RingStepKind::reduce
         : step == world - 1 ? RingStepKind::final
                             : RingStepKind::forward;
}

// Receive slot of transfer `seq` (a per-channel counter shared by sender and receiver).
ARB_HD_CONSTEXPR int ring_slot(std::uint32_t seq, int slots) {
  return static_cast<int>(seq % static_cast<std::uint32_t>(slots));
}

}  // namespace arbench::algo
