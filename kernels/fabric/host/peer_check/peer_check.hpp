// The functional peer-to-peer check: every rank writes a pattern into every peer's memory through
// its peer mapping and reads one back from there, under a short bound, before any custom case
// trusts the mapping (arbench/core/peer_access.hpp says why). Host logic, over per-peer mapped
// pointers of any provider: PeerProbe is the backend (one rank's side of each step), implemented
// for host memory (HostPeerProbe, below: the host fabric, where a test switch plants a broken pair)
// and for GPU memory (kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp: NCCL windows, the cuda
// provider's arena, or peer-enabled cudaMalloc memory on bare devices).
//
// Probe memory per rank (peer_probe_bytes(world, bulk), a symmetric buffer): a header of words
// (one slot per writer rank, the word its peers read, one bulk flag per writer and path), then,
// with a bulk transfer, one region per writer rank: its copy-engine half, then its SM-store half.
// Protocol, with a fresh token:
//   1. each rank clears its header and puts read_word(token, rank) in its read word, locally;
//   2. (all processes) each rank, for each peer p it is said to reach: stores write_word(token,
//      rank, p) into p's slot `rank` through the mapping and reads it back through the mapping
//      until it shows (the write figure), then loads p's read word through the mapping (the read
//      figure, and the value seen); with a bulk transfer, then writes `bulk` bytes of
//      peer_bulk_word() into p's region `rank` twice, with the copy engine and with SM stores, and
//      after each (stream order, then a system-scope release) sets its flag in p's header: data
//      before flag. Every rank's probe is started, then the host waits for each, bounded
//      (PeerCheckOptions::finish_s): a probe that never finishes marks its rank's pairs broken
//      and the check goes on;
//   3. (all processes) each rank reads its own header locally (never on a stream a stuck probe
//      holds), polling up to the bound: the slot of peer q holds q's pattern when q's writes
//      arrive; each bulk region whose flag arrived is read and compared word by word;
//   4. the findings are gathered over the World; a pair is ok when its write arrived, its read
//      returned the peer's word and both bulk transfers arrived intact; else broken (with what
//      went wrong). A backend error on a rank (HangError included) marks that rank's pairs broken
//      and never escapes; a fatal device fault (a sticky CUDA error) stops the probing and is
//      handed back (PeerCheckOptions::fatal) for the fabric to end the run with.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "arbench/core/hd.hpp"
#include "arbench/core/peer_access.hpp"
#include "arbench/fabric.hpp"
#include "arbench/world.hpp"

namespace arbench {

// Header words: slots [0, kMaxRanks), the read word, copy-engine flags, SM-store flags.
inline constexpr std::size_t kPeerReadWord = kMaxRanks;
inline constexpr std::size_t kPeerCopyFlag0 = kMaxRanks + 1;
inline constexpr std::size_t kPeerStoreFlag0 = 2 * kMaxRanks + 1;
inline constexpr std::size_t kPeerProbeWords = 3 * kMaxRanks + 1;
inline constexpr std::size_t kPeerProbeBytes = 256;  // the header, kPeerProbeWords words, padded
static_assert(kPeerProbeWords * sizeof(std::uint64_t) <= kPeerProbeBytes);
// What the GPU fabrics move per pair and path in the bulk part of the check (a few MiB per pair).
inline constexpr std::size_t kPeerBulkBytes = std::size_t(2) << 20;

// The probe memory per rank for `world` ranks and `bulk` bytes per pair and path.
inline std::size_t peer_probe_bytes(int world, std::size_t bulk) {
  return kPeerProbeBytes + std::size_t(world) * 2 * bulk;
}
// Byte offset of writer `from`'s region (path 0: copy engine, 1: SM stores) in a rank's probe memory.
inline std::size_t peer_bulk_offset(int from, int path, std::size_t bulk) {
  return kPeerProbeBytes + (std::size_t(from) * 2 + std::size_t(path)) * bulk;
}

// Patterns that neither zeroed memory nor a failed PCIe read (all ones) can pass for.
inline std::uint64_t peer_write_word(std::uint32_t token, int from, int to) {
  return 0xA5C30000'00000000ull | (std::uint64_t(token) << 16) | (std::uint64_t(from) << 8) | std::uint64_t(to);
}
inline std::uint64_t peer_read_word(std::uint32_t token, int owner) {
  return 0x3C5A0000'00000000ull | (std::uint64_t(token) << 16) | 0xF000u | std::uint64_t(owner);
}
// A bulk flag: which writer, which path, which token (never 0, never all ones).
inline std::uint64_t peer_bulk_flag(std::uint32_t token, int from, int to, int path) {
  return 0x5AF10000'00000000ull | (std::uint64_t(token) << 16) | (std::uint64_t(path) << 12) |
         (std::uint64_t(from) << 8) | std::uint64_t(to);
}
// Word `i` of a bulk region (the kernels and the host check share it): a hash of where it belongs,
// so a dropped, repeated, shifted or stale word (another pair's, another token's) shows.
ARB_HD std::uint64_t peer_bulk_word(std::uint32_t token, int from, int to, int path, std::uint64_t i) {
  std::uint64_t x = (std::uint64_t(token) << 32) ^ (std::uint64_t(from) << 24) ^ (std::uint64_t(to) << 16) ^
                    (std::uint64_t(path) << 8) ^ (i * 0x9E3779B97F4A7C15ull);
  x ^= x >> 30;  // splitmix64's finaliser
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// What one rank saw of one peer through its mapping (step 2).
struct PeerSeen {
  bool written = false;  // the read-back through the mapping showed the pattern
  double write_ns = -1;  // store until the read-back showed it
  std::uint64_t read = 0;
  double read_ns = -1;   // per load of the peer's read word
  std::string failure;   // the probe could not run (e.g. a CUDA error); empty otherwise
};

struct PeerCheckOptions {
  std::size_t bulk_bytes = 0;  // per pair and path; 0: words only (the memory is kPeerProbeBytes)
  // How long the host waits for one rank's probe to finish (< 0: 2 x bound per peer + 5 s, the
  // margin for a load through a broken mapping that waits for a PCIe completion timeout).
  double finish_s = -1;
  // Set (when given) to what a device reported when it faulted for good during the check (a sticky
  // CUDA error, e.g. after an Xid); the pairs not checked because of it are broken.
  std::string* fatal = nullptr;
};

// The backend: one rank's side of each step, over one symmetric buffer of peer_probe_bytes() per
// rank. Any call may throw Error (HangError included); the check catches it per rank.
class PeerProbe {
 public:
  virtual ~PeerProbe() = default;
  // Step 1: `rank`'s header cleared and its read word set, written locally (no mapping).
  virtual void prepare(int rank, std::uint64_t read_word) = 0;
  // Step 2, started: `rank` reaches each of `peers` through its mapping (write[i] for peers[i]);
  // with `bulk` > 0, then the bulk transfers of `token`'s peer_bulk_word() and their flags.
  virtual void start(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write,
                     double bound_s, std::size_t bulk, std::uint32_t token) = 0;
  // Whether `rank`'s started probe has finished (polled; never blocks).
  virtual bool finished(int rank) = 0;
  // What the finished probe saw, seen[i] for peers[i].
  virtual std::vector<PeerSeen> seen(int rank) = 0;
  // Step 3: `rank`'s header words (kPeerProbeWords) as it reads them locally; and writer `from`'s
  // bulk region on `path` (bulk / 8 words). Never on a stream a stuck probe holds.
  virtual std::vector<std::uint64_t> header(int rank) = 0;
  virtual std::vector<std::uint64_t> bulk_region(int rank, int from, int path, std::size_t bulk) = 0;
  // Non-empty when the device of `rank` is no longer usable (a sticky fault): what it reports.
  virtual std::string fatal(int rank) { (void)rank; return {}; }
};

// Runs the check over `world` ranks; `drives(r)`: whether this process drives rank r;
// `reported[a][b]`: whether a is said to reach b (empty: every pair). Collective over `processes`
// (one process: no collectives). `bound_s` bounds each wait of a probe. Never throws for what a
// probe does (see above); throws only when the processes cannot agree.
PeerAccess check_peer_access(PeerProbe& probe, int world, const std::function<bool(int)>& drives,
                             const std::vector<std::vector<int>>& reported, World& processes, double bound_s,
                             std::uint32_t token, std::string method, std::string unit = "GPU",
                             PeerCheckOptions opt = {});

// Host memory: the host fabric's ranks and peers are plain pointers of one process.
class HostPeerProbe final : public PeerProbe {
 public:
  explicit HostPeerProbe(const RankBuffers& buf) : buf_(buf) {}
  void prepare(int rank, std::uint64_t read_word) override;
  void start(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write, double bound_s,
             std::size_t bulk, std::uint32_t token) override;
  bool finished(int) override { return true; }  // start() runs the probe on the calling thread
  std::vector<PeerSeen> seen(int rank) override { return seen_.at(std::size_t(rank)); }
  std::vector<std::uint64_t> header(int rank) override;
  std::vector<std::uint64_t> bulk_region(int rank, int from, int path, std::size_t bulk) override;

 private:
  const RankBuffers& buf_;
  std::vector<std::vector<PeerSeen>> seen_ = std::vector<std::vector<PeerSeen>>(kMaxRanks);
};

}  // namespace arbench
