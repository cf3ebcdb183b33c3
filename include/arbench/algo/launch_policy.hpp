// Grid choice of the symmetric-memory kernels, as a constexpr policy testable on the host.
//
// Rules: one pack per thread per block when the message is small (latency: more blocks means
// more PCIe requests in flight but also more flag traffic, since every block runs its own
// barrier); never more blocks than kMaxBlocks (the flag layout) nor than fit on the device at
// once divided by the ranks sharing it (single_gpu runs N virtual ranks on one GPU: their blocks
// wait for each other, so all of them must be resident together, or the wait would time out).
// --blocks (Tuning::blocks) overrides the size rule, within the same residency cap.
#pragma once

#include <cstddef>

#include "arbench/algo/symm_layout.hpp"

namespace arbench::algo {

// Threads per block, and one work item per thread per block when the message is small: a 16-byte
// pack for the exact kernels, an FP8 unit (one block of kFp8UnitElems = 32 elements: its 2 code packs and
// scale byte, fp8/fp8_payload.hpp) for the FP8 ones.
template <int Threads>
struct SymmGridPolicy {
  static constexpr int kThreads = Threads;
  // Blocks per SM the kernels are compiled for (__launch_bounds__'s second argument). The grid
  // rules never need more than one block of a rank per SM, and saying so lets ptxas give each
  // thread up to 65536 / kThreads registers; left unsaid, ptxas aims at two blocks per SM (64
  // registers at 512 threads) and the fp16 and fused kernels spilled to local memory, a round
  // trip inside the critical path of a latency-bound kernel (scripts/kernel_resources.py checks).
  static constexpr int kMinBlocksPerSm = 1;
  static constexpr std::size_t kItemsPerBlock = kThreads;
  static constexpr int kHostSms = 4;  // the sequential twins' stand-in SM count (keeps multi-block paths tested)

  // Threads per block a host twin may run in its block-faithful mode (--host-threads): any
  // count up to the kernel's own; the protocols stride by the thread count.
  static constexpr bool threads_ok(int threads) { return threads >= 1 && threads <= kThreads; }

  // Blocks that may run at once for one rank: SMs shared by the ranks of one device.
  static constexpr int max_blocks(int sms, int ranks_per_device) {
    const int per_rank = sms / (ranks_per_device > 0 ? ranks_per_device : 1);
    return per_rank < 1 ? 1 : (per_rank > kMaxBlocks ? kMaxBlocks : per_rank);
  }

  static constexpr int blocks(std::size_t items, int sms, int ranks_per_device, int requested) {
    const int cap = max_blocks(sms, ranks_per_device);
    if (requested > 0) return requested < cap ? requested : cap;
    const std::size_t want = (items + kItemsPerBlock - 1) / kItemsPerBlock;
    if (want < 1) return 1;
    return want < static_cast<std::size_t>(cap) ? static_cast<int>(want) : cap;
  }
};

// The exact symmetric-memory kernels: 512 threads, a pack each (8 KB of message per block).
using SymmLaunchPolicy = SymmGridPolicy<512>;

// oneshot-fp8 and twoshot-fp8: a work item is one 32-element FP8 unit, whose thread holds every
// rank's codes and scale at once (one wave of loads, fp8/fp8_payload.hpp): 256 threads leave
// each up to 255 registers. The grid: never fewer blocks than oneshot-pull's for the same message
// (a block per 8 KB of it; more blocks, more PCIe reads in flight), and at least one block per
// kThreads units, within the same residency cap.
struct Fp8LaunchPolicy {
  using Grid = SymmGridPolicy<256>;
  static constexpr int kThreads = Grid::kThreads;
  static constexpr int kMinBlocksPerSm = Grid::kMinBlocksPerSm;
  static constexpr int kHostSms = Grid::kHostSms;
  static constexpr bool threads_ok(int threads) { return Grid::threads_ok(threads); }
  static constexpr int max_blocks(int sms, int ranks_per_device) { return Grid::max_blocks(sms, ranks_per_device); }

  // units: the FP8 units of the message; exact_packs: its 16-byte packs in the input dtype (what
  // oneshot-pull's grid counts).
  static constexpr int blocks(std::size_t units, std::size_t exact_packs, int sms, int ranks_per_device,
                              int requested) {
    const int own = Grid::blocks(units, sms, ranks_per_device, requested);
    if (requested > 0) return own;
    const int pull = SymmLaunchPolicy::blocks(exact_packs, sms, ranks_per_device, 0);
    return own > pull ? own : pull;
  }
};

}  // namespace arbench::algo
