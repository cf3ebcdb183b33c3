// The island variants' memory on the GPU fabrics of one process (Fabric::alloc_island,
// Fabric::alloc_host_mapped; docs/variants.md, "Island variants"). NCCL's symmetric windows need
// P2P between every pair of GPUs; these need it only within an island:
//   IslandBuffers      plain device buffers (DeviceBuffers: cudaMalloc on each rank's GPU,
//                      zero-filled on the rank's stream), peer access enabled
//                      (cudaDeviceEnablePeerAccess) from every rank to every peer the fabric
//                      says it can reach; peer(r, p) throws for the other pairs.
//   HostMappedBuffers  pinned host memory per rank, zero-filled, addressed by every GPU (unified
//                      addressing: the host pointer is the device pointer on every device): the
//                      cross-island path of GPUs without P2P, as NCCL's SHM transport. Each
//                      rank's pages sit on its GPU's NUMA node (kernels/fabric/host/numa_memory.hpp:
//                      placed, first-touched, then cudaHostRegister-ed portable + mapped), and
//                      placement() records where they really went.
// Both are freed only once the owner's streams are idle (else left allocated, as DeviceBuffers).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/host/numa_memory.hpp"
#include "kernels/fabric/host/placed_buffers.hpp"

namespace arbench {

class IslandBuffers final : public RankBuffers {
 public:
  IslandBuffers(const CudaFabric& owner, std::size_t bytes);
  std::size_t bytes() const override { return memory_.bytes(); }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return memory_.local(rank); }
  void* peer(int rank, int peer) const override;

 private:
  const CudaFabric& owner_;
  DeviceBuffers memory_;  // per local rank; peer() decides which peers may address it
};

class HostMappedBuffers final : public PlacedBuffers {
 public:
  HostMappedBuffers(const CudaFabric& owner, std::size_t bytes);
  ~HostMappedBuffers() override;
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override { return ptrs_.at(static_cast<std::size_t>(rank))->data(); }
  void* peer(int /*rank*/, int peer) const override { return ptrs_.at(static_cast<std::size_t>(peer))->data(); }
  // mailbox_numa_nodes: by rank, the node its pages sit on ("0,0,1,1"; "0+1" spread, "?" not
  // known); mailbox_numa_wanted: by rank, its GPU's node ("?" unknown); mailbox_numa_note (only
  // when some rank is not on its GPU's node): why.
  std::vector<std::pair<std::string, std::string>> placement() const override { return placement_; }

 private:
  void place_all();  // allocates, places and registers every rank's pages; fills placement_

  const CudaFabric& owner_;
  std::size_t bytes_;
  std::vector<std::unique_ptr<NumaPages>> ptrs_;  // per rank, registered with CUDA
  std::vector<std::pair<std::string, std::string>> placement_;
};

// Whether device `a` can access device `b`'s memory directly (same device: yes).
bool devices_have_p2p(int a, int b);

}  // namespace arbench
