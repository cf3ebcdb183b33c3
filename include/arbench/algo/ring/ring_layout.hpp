// Memory of the native ring, shared by the kernel (kernels/ring/ring.cu), the twin
// (kernels/ring/ring_twin.cpp) and the host code that allocates it (kernels/ring/ring_variant.hpp).
//
// Symmetric scratch, one per rank, same layout on every rank:
//   [credits] uint32 credit[kMaxChannels] at 0: credit[ch] is written only by this rank's NEXT
//             rank (the receiver of our sends) with the last transfer it has consumed.
//   [flags]   uint32 flag[kMaxChannels][kSlots] at kRingFlagOffset: written only by this rank's
//             PREV rank with the transfer it just stored in that receive slot.
//   [slots]   Pack[channels][kSlots][chunk_packs] at kRingDataOffset: receive slots, written
//             only by PREV (posted writes), read only by this rank.
// So every wait polls the waiter's own memory and only stores cross the fabric.
// Local state (only its rank touches it): RingState, one per rank: the per-channel transfer
// counter (the epoch of this protocol, kept in device memory so CUDA-graph replays continue
// it) and the error record.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arbench/algo/pack.hpp"
#include "arbench/algo/ring/ring_policy.hpp"
#include "arbench/algo/ring/ring_schedule.hpp"
#include "arbench/algo/wait.hpp"
#include "arbench/core/hd.hpp"

namespace arbench::algo {

inline constexpr std::size_t kRingFlagOffset = 256;
inline constexpr std::size_t kRingDataOffset = 4096;
static_assert(RingPolicy::kMaxChannels * sizeof(std::uint32_t) <= kRingFlagOffset);
static_assert(kRingFlagOffset + RingPolicy::kMaxChannels * RingPolicy::kSlots * sizeof(std::uint32_t) <=
              kRingDataOffset);

// Wait kinds of the ring (wait.hpp's WaitKind lists the symmetric protocols' kinds; these
// continue it without touching that file). index = the transfer (sequence number) waited for.
inline constexpr WaitKind kRingDataWait = static_cast<WaitKind>(16);    // slot flag from prev
inline constexpr WaitKind kRingCreditWait = static_cast<WaitKind>(17);  // credit from next
inline constexpr WaitKind kRingOverwrite = static_cast<WaitKind>(18);   // slot rewritten early

struct RingState {
  std::uint32_t seq[RingPolicy::kMaxChannels];  // per channel: the last transfer of the last op
  ErrorRecord error;
};

// What the protocol needs, by value (the kernel's argument and the twin's input alike).
struct RingArgs {
  const void* in = nullptr;  // own input, n elements
  void* out = nullptr;       // own output, may equal `in`
  std::size_t n = 0;
  RingGeometry g{};
  void* own = nullptr;   // own scratch
  void* next = nullptr;  // next rank's scratch as this rank addresses it (slots, flags)
  void* prev = nullptr;  // prev rank's scratch as this rank addresses it (credits)
  RingState* state = nullptr;
  std::uint64_t timeout_ns = 0;  // bound of one op's waits (wait.hpp OpBound)
  std::uint64_t* phases = nullptr;  // own phase record (phase_record.hpp); null: not recorded
  int rank = 0;
  int pos = 0;  // ring position
  int prev_rank = 0;
  int next_rank = 0;
  // Test hooks (tests/host/algo/test_ring_credits.cpp); zero in production.
  int test_skip_credit_wait = 0;       // send without waiting for the slot's credit
  int test_slow_rank = -1;             // this rank dawdles before consuming each transfer
  std::uint64_t test_consume_delay_ns = 0;
};

ARB_HD std::uint32_t* ring_credit_ptr(void* scratch, int channel) {
  return static_cast<std::uint32_t*>(scratch) + channel;
}

ARB_HD std::uint32_t* ring_flag_ptr(void* scratch, int channel, int slot) {
  return reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(scratch) + kRingFlagOffset) +
         channel * RingPolicy::kSlots + slot;
}

ARB_HD Pack* ring_slot_ptr(void* scratch, const RingGeometry& g, int channel, int slot) {
  const std::size_t index = static_cast<std::size_t>(channel) * RingPolicy::kSlots + static_cast<std::size_t>(slot);
  return reinterpret_cast<Pack*>(static_cast<unsigned char*>(scratch) + kRingDataOffset) + index * g.chunk_packs;
}

inline constexpr std::size_t ring_scratch_bytes(const RingGeometry& g) {
  return kRingDataOffset + static_cast<std::size_t>(g.channels) * RingPolicy::kSlots * g.chunk_packs * kPackBytes;
}

}  // namespace arbench::algo
