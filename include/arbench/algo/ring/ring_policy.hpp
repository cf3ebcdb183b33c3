// Ring policy: channel count and chunk size of the native ring, as a constexpr policy testable
// on the host (tests/host/algo/test_ring_policy.cpp). --ring-channels / --ring-chunk override it.
//
// Why these defaults (PCIe, one block per channel):
//   - One block cannot keep a Gen5 x16 link busy with posted 16-byte stores, so large messages
//     use several channels (independent rings on disjoint blocks and disjoint packs). Small
//     messages gain nothing from more channels but pay one flag and one credit per transfer per
//     channel, so a channel is only added per kMinBytesPerChannel of message.
//   - Chunk (the packs of one transfer, = one receive slot): as large as the message allows, up
//     to kMaxChunkBytes. A ring step costs one flag hop plus chunk/bandwidth, and every rank
//     works on one transfer per step, so fewer, larger transfers cost fewer flag hops; the cap
//     bounds the receive slots (kSlots x chunk x channels per rank) and keeps several rounds in
//     flight for messages of tens of MB. A message that fits in one round (N x chunk per
//     channel) gets chunk = its segment, so small messages run exactly 2(N-1) transfers.
//   - Channels are capped by what fits on the device at once: every block of every rank that
//     shares a GPU must be resident together (they wait on each other).
// These are first-principles defaults, not yet tuned on the target box (see docs/variants.md, "The native ring").
#pragma once

#include <cstddef>

#include "arbench/algo/pack.hpp"

namespace arbench::algo {

struct RingPolicy {
  static constexpr int kThreads = 512;
  static constexpr int kMinBlocksPerSm = 1;  // as SymmLaunchPolicy::kMinBlocksPerSm
  static constexpr int kSlots = 4;  // receive slots per channel; a power of two (ring_slot wraps)
  static constexpr int kMaxChannels = 32;  // flag/credit layout bound
  static constexpr int kDefaultMaxChannels = 8;
  static constexpr std::size_t kMinBytesPerChannel = 64u << 10;
  static constexpr std::size_t kMaxChunkBytes = 256u << 10;
  static_assert((kSlots & (kSlots - 1)) == 0 && kSlots >= 2, "credits need >= 2 slots (ring.hpp)");

  // Threads per block of a host twin's block-faithful mode (--host-threads): up to the kernel's.
  static constexpr bool threads_ok(int threads) { return threads >= 1 && threads <= kThreads; }

  // `cap`: most channels that can run at once (device residency; the twin passes kMaxChannels).
  static constexpr int channels(std::size_t bytes, int cap, int requested) {
    const int limit = cap < 1 ? 1 : (cap > kMaxChannels ? kMaxChannels : cap);
    if (requested > 0) return requested < limit ? requested : limit;
    const std::size_t want = bytes / kMinBytesPerChannel;
    const int dflt = want < 1 ? 1
                     : want < static_cast<std::size_t>(kDefaultMaxChannels) ? static_cast<int>(want)
                                                                            : kDefaultMaxChannels;
    return dflt < limit ? dflt : limit;
  }

  // Chunk in packs (>= 1). `requested_bytes` (--ring-chunk) is rounded up to whole packs.
  static constexpr std::size_t chunk_packs(std::size_t bytes, int world, int channels,
                                           std::size_t requested_bytes) {
    if (requested_bytes > 0) return (requested_bytes + kPackBytes - 1) / kPackBytes;
    const std::size_t packs = (bytes + kPackBytes - 1) / kPackBytes;
    const std::size_t per = static_cast<std::size_t>(world > 0 ? world : 1) *
                            static_cast<std::size_t>(channels > 0 ? channels : 1);
    const std::size_t seg = (packs + per - 1) / per;
    const std::size_t cap = kMaxChunkBytes / kPackBytes;
    return seg < 1 ? 1 : (seg < cap ? seg : cap);
  }
};

}  // namespace arbench::algo
