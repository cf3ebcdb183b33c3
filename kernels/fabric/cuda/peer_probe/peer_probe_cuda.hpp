// The functional peer-to-peer check on GPUs (kernels/fabric/host/peer_check.hpp runs it): one
// rank's side, over any symmetric RankBuffers whose peer() pointers are device addresses mapped to
// the peer's memory (NCCL windows today; CUDA peer mappings of arbench's own provider alike), and
// the whole check on a list of devices with cudaMalloc memory and peer access enabled (what
// `arbench topo` reports).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "arbench/core/peer_access.hpp"
#include "arbench/fabric.hpp"
#include "kernels/fabric/host/peer_check.hpp"

namespace arbench {

// How long one rank's probe kernel may spin on a read-back before it gives up on that peer (the
// whole check takes a few of these at most).
inline constexpr double kPeerCheckBound_s = 0.2;

class CudaPeerProbe final : public PeerProbe {
 public:
  // devices[i], streams[i]: rank first_rank + i's (the ranks this process drives); `buf`: at
  // least kPeerProbeBytes per rank, symmetric. `planted`: the test seam's broken pair, whose
  // stores go to the writer's own memory and whose loads read it (the pair's data never arrives).
  CudaPeerProbe(std::vector<int> devices, std::vector<cudaStream_t> streams, int first_rank, const RankBuffers& buf,
                BrokenPair planted = {});
  void prepare(int rank, std::uint64_t read_word) override;
  std::vector<PeerSeen> probe(int rank, const std::vector<int>& peers, const std::vector<std::uint64_t>& write,
                              double bound_s) override;
  std::vector<std::uint64_t> slots(int rank) override;

 private:
  std::size_t index(int rank) const { return std::size_t(rank - first_rank_); }

  std::vector<int> devices_;
  std::vector<cudaStream_t> streams_;
  int first_rank_;
  const RankBuffers& buf_;
  BrokenPair planted_;
};

// The check on `devices` of this process (ranks = positions in the list): cudaMalloc memory on
// each, peer access enabled for every pair `reported` says can reach (cudaDeviceCanAccessPeer),
// then the check; peer access is disabled and the memory freed again. A pair whose access cannot
// be enabled, or that faults, is broken with the CUDA error. Never throws for a broken pair;
// throws EnvironmentError / CaseError when the devices themselves cannot be used.
PeerAccess check_device_peer_access(const std::vector<int>& devices, const std::vector<std::vector<int>>& reported,
                                    double bound_s = kPeerCheckBound_s, BrokenPair planted = {});

}  // namespace arbench
