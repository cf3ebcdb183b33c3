// The functional peer-to-peer check on GPUs (kernels/fabric/host/peer_check/peer_check.hpp runs it): one
// rank's side, over any symmetric RankBuffers whose peer() pointers are device addresses mapped to
// the peer's memory (NCCL windows today; CUDA peer mappings of arbench's own provider alike), and
// the whole check on a list of devices with cudaMalloc memory and peer access enabled (what
// `arbench topo` reports).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "arbench/core/peer_access.hpp"
#include "arbench/fabric.hpp"
#include "kernels/fabric/host/peer_check/peer_check.hpp"
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"

namespace arbench {

// How long one rank's probe kernel may spin on a read-back before it gives up on that peer (the
// whole check takes a few of these at most).
inline constexpr double kPeerCheckBound_s = 0.2;

class CudaPeerProbe final : public PeerProbe {
 public:
  // devices[i]: rank first_rank + i's GPU (the ranks this process drives); `buf`: at least
  // peer_probe_bytes() per rank, symmetric. `planted`: the test seam's broken pair, whose stores
  // go to the writer's own memory and whose loads read it (the pair's data never arrives).
  // The probe runs on streams of its own (a probe that never finishes holds only those), and
  // the step-3 reads on others again.
  CudaPeerProbe(std::vector<int> devices, int first_rank, const RankBuffers& buf, BrokenPair planted = {});
  // Frees what it allocated where its probe finished; a stuck probe's memory stays allocated.
  ~CudaPeerProbe() override;
  CudaPeerProbe(const CudaPeerProbe&) = delete;
  CudaPeerProbe& operator=(const CudaPeerProbe&) = delete;

  void prepare(int rank, std::uint64_t read_word) override;
  void start(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write, double bound_s,
             std::size_t bulk, std::uint32_t token) override;
  bool finished(int rank) override;
  std::vector<PeerSeen> seen(int rank) override;
  std::vector<std::uint64_t> header(int rank) override;
  std::vector<std::uint64_t> bulk_region(int rank, int from, int path, std::size_t bulk) override;
  std::string fatal(int rank) override;
  // Whether every probe it started has finished: only then may `buf` be freed.
  bool idle();
  // Test seam (the GPU tests): `rank`'s probe starts `seconds` late (a %globaltimer spin on its
  // stream), as a probe whose load never completes looks to the host.
  void stall(int rank, double seconds) { at(rank).stall_s = seconds; }

 private:
  struct Rank {
    int device = 0;
    cudaStream_t probe = nullptr, reader = nullptr;
    cudaEvent_t done = nullptr;
    void* out = nullptr;      // the probe kernel's findings (kMaxRanks entries)
    void* scratch = nullptr;  // the copy engine's source, one pattern at a time
    std::size_t scratch_bytes = 0;
    int count = 0;  // peers probed
    bool started = false;
    double stall_s = 0;
  };
  Rank& at(int rank) { return ranks_.at(std::size_t(rank - first_rank_)); }
  void release() noexcept;
  // `bytes` of the rank's memory at `offset`, copied to the host on its reader stream (bounded).
  std::vector<std::uint64_t> read_local(int rank, std::size_t offset, std::size_t bytes, const char* what);

  std::vector<Rank> ranks_;
  int first_rank_;
  const RankBuffers& buf_;
  BrokenPair planted_;
};

// cudaDeviceCanAccessPeer for every ordered pair of `devices` (1: reported; the diagonal 0).
std::vector<std::vector<int>> reported_peer_access(const std::vector<int>& devices);

// The check on `devices` of this process (ranks = positions in the list): cudaMalloc memory on
// each, peer access enabled for every pair `reported` says can reach (cudaDeviceCanAccessPeer),
// then the check (words, and a bulk transfer of `bulk` bytes per pair and path); peer access is
// disabled and the memory freed again (left allocated where a probe never finished). A pair whose
// access cannot be enabled, or that faults, is broken with the CUDA error; a sticky fault is
// handed back in *fatal (when given). Never throws for a broken pair or a stuck probe; throws EnvironmentError /
// CaseError when the devices themselves cannot be used.
PeerAccess check_device_peer_access(const std::vector<int>& devices, const std::vector<std::vector<int>>& reported,
                                    double bound_s = kPeerCheckBound_s, BrokenPair planted = {},
                                    std::size_t bulk = kPeerBulkBytes, std::string* fatal = nullptr);

// A fabric's check on bare devices (FabricPeerCheck::check_bare, where its own symmetric memory
// could not be had): the check above over the pairs CUDA reports, a sticky fault in `fatal`.
CheckedPeers check_bare_devices(const std::vector<int>& devices, BrokenPair planted);

}  // namespace arbench
