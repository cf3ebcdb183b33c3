// CudaPeerProvider: the `cuda` provider, arbench's own peer mappings (docs/variants.md,
// "Symmetric memory: two providers"), written against the PeerDriver seam.
//
// One process driving every rank: each rank's chunk is physical memory on its GPU (cuMemCreate)
// mapped at one virtual address (cuMemAddressReserve + cuMemMap), and every other GPU is granted
// access to that address (cuMemSetAccess): in one process all GPUs share the address space, so a
// peer's buffer has the same address on every rank, and only the arena is exposed, not every
// allocation of the GPU (as cudaDeviceEnablePeerAccess would).
// One process per GPU (mpirun): each process creates its chunk exportable, shares it as a POSIX
// file descriptor (fd_exchange.hpp), and maps every peer's into a range of its own with access
// for its GPU. This is how torch symmetric memory maps peer memory; vLLM's custom all-reduce
// instead exchanges cudaIpcGetMemHandle handles of cudaMalloc memory through torch.distributed.
//
// A pair of GPUs that cannot reach each other (cudaDeviceCanAccessPeer says no, or the driver
// refuses the access) throws PeerMapRefused naming both; with several processes they agree on the
// lowest process's refusal. With several processes, each asks cudaDeviceCanAccessPeer about every
// peer's GPU (known by PCI bus id) before it imports that peer's chunk, rather than rely on
// cuMemSetAccess refusing; a peer GPU this process cannot see (CUDA_VISIBLE_DEVICES) cannot be
// asked about, and is left to cuMemSetAccess, as NCCL 2.28.9 (src/transport/p2p.cc,
// p2pCanConnect) trusts its topology for such GPUs. A chunk that fails to map is released before
// map() throws.
#pragma once

#include <string>
#include <vector>

#include "arbench/world.hpp"
#include "kernels/fabric/peer/peer_driver.hpp"
#include "kernels/fabric/peer/peer_provider.hpp"

namespace arbench {

class CudaPeerProvider final : public PeerProvider {
 public:
  // devices[i]: the GPU of world rank first_rank + i (every rank: one process; one rank: one of
  // `processes`, which then has `world` processes). `timeout_s` bounds the descriptor exchange.
  // Throws EnvironmentError when a GPU lacks what the provider needs.
  CudaPeerProvider(PeerDriver& driver, std::vector<int> devices, int first_rank, int world, World& processes,
                   double timeout_s);
  ~CudaPeerProvider() override = default;

  std::string_view name() const override { return "cuda"; }
  std::size_t granularity() const override { return granularity_; }
  PeerChunk map(std::size_t bytes) override;
  void release_all() noexcept override;

  // What is mapped now (tests).
  std::size_t mappings() const { return mappings_.size(); }

 private:
  struct Mapping {
    Address va = 0;
    std::size_t bytes = 0;
    MemHandle handle = 0;
  };
  bool multi_process() const { return processes_.multi_process(); }
  // Creates, reserves and maps `bytes` of `h` (or a new allocation on `device`), recorded.
  Address map_new(int device, std::size_t bytes);
  Address map_handle(MemHandle h, std::size_t bytes);
  void release_from(std::size_t first) noexcept;
  PeerChunk map_one_process(std::size_t bytes);
  PeerChunk map_processes(std::size_t bytes);
  std::string pair_text(int user, int owner) const;

  PeerDriver& driver_;
  std::vector<int> devices_;
  // One process per GPU: each rank's GPU as this process numbers it (-1: not visible here).
  std::vector<int> peer_devices_;
  int first_rank_, world_;
  World& processes_;
  double timeout_s_;
  std::size_t granularity_ = 0;
  std::vector<Mapping> mappings_;  // in the order made; released in reverse
};

}  // namespace arbench
