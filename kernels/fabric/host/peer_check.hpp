// The functional peer-to-peer check: every rank writes a pattern into every peer's memory through
// its peer mapping and reads one back from there, under a short bound, before any custom case
// trusts the mapping (arbench/core/peer_access.hpp says why). Host logic, over per-peer mapped
// pointers of any provider: PeerProbe is one rank's side of it, implemented for host memory
// (HostPeerProbe, below: the host fabric, where a test switch plants a broken pair) and for GPU
// memory (kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp: NCCL windows, peer-enabled cudaMalloc memory,
// or any other RankBuffers whose peer() pointers are mapped).
//
// Probe memory per rank (kPeerProbeBytes, a symmetric buffer): one slot word per writer rank, then
// the word its peers read. Protocol, with a fresh token:
//   1. each rank clears its slots and puts read_word(token, rank) in its read word, locally;
//   2. (all processes) each rank, for each peer p it is said to reach: stores write_word(token,
//      rank, p) into p's slot `rank` through the mapping and reads it back through the mapping
//      until it shows (bounded: the write figure), then loads p's read word through the mapping
//      (the read figure, and the value seen);
//   3. (all processes) each rank reads its own slots locally, polling up to the bound: the slot of
//      peer q holds q's pattern when q's writes arrive;
//   4. the findings are gathered over the World; a pair is ok when its write arrived and its read
//      returned the peer's word, else broken (with what went wrong).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "arbench/core/peer_access.hpp"
#include "arbench/fabric.hpp"
#include "arbench/world.hpp"

namespace arbench {

inline constexpr std::size_t kPeerProbeWords = kMaxRanks + 1;  // slots, then the read word
inline constexpr std::size_t kPeerProbeBytes = 128;            // kPeerProbeWords words, padded
static_assert(kPeerProbeWords * sizeof(std::uint64_t) <= kPeerProbeBytes);

// Patterns that neither zeroed memory nor a failed PCIe read (all ones) can pass for.
inline std::uint64_t peer_write_word(std::uint32_t token, int from, int to) {
  return 0xA5C30000'00000000ull | (std::uint64_t(token) << 16) | (std::uint64_t(from) << 8) | std::uint64_t(to);
}
inline std::uint64_t peer_read_word(std::uint32_t token, int owner) {
  return 0x3C5A0000'00000000ull | (std::uint64_t(token) << 16) | 0xF000u | std::uint64_t(owner);
}

// What one rank saw of one peer through its mapping (step 2).
struct PeerSeen {
  bool written = false;  // the read-back through the mapping showed the pattern
  double write_ns = -1;  // store until the read-back showed it
  std::uint64_t read = 0;
  double read_ns = -1;   // per load of the peer's read word
  std::string failure;   // the probe could not run (e.g. a CUDA error); empty otherwise
};

// One rank's side of the check, over one symmetric buffer of >= kPeerProbeBytes per rank.
class PeerProbe {
 public:
  virtual ~PeerProbe() = default;
  // Step 1: `rank`'s slots cleared and its read word set, written locally (no mapping).
  virtual void prepare(int rank, std::uint64_t read_word) = 0;
  // Step 2: `rank` reaches each of `peers` through its mapping; seen[i] for peers[i].
  virtual std::vector<PeerSeen> probe(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write,
                                      double bound_s) = 0;
  // Step 3: `rank`'s slot words as it reads them locally.
  virtual std::vector<std::uint64_t> slots(int rank) = 0;
};

// Runs the check over `world` ranks; `drives(r)`: whether this process drives rank r;
// `reported[a][b]`: whether a is said to reach b (empty: every pair). Collective over `processes`
// (one process: no collectives). `bound_s` bounds each wait.
PeerAccess check_peer_access(PeerProbe& probe, int world, const std::function<bool(int)>& drives,
                             const std::vector<std::vector<int>>& reported, World& processes, double bound_s,
                             std::uint32_t token, std::string method, std::string unit = "GPU");

// Host memory: the host fabric's ranks and peers are plain pointers of one process.
class HostPeerProbe final : public PeerProbe {
 public:
  explicit HostPeerProbe(const RankBuffers& buf) : buf_(buf) {}
  void prepare(int rank, std::uint64_t read_word) override;
  std::vector<PeerSeen> probe(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write,
                              double bound_s) override;
  std::vector<std::uint64_t> slots(int rank) override;

 private:
  const RankBuffers& buf_;
};

}  // namespace arbench
