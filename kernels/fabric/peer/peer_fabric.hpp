// PeerFabric: the cuda backend on the `cuda` provider: one rank per GPU, driven by one host
// thread, and no NCCL at all. Symmetric memory is one SymmArena per fabric (symm_arena.hpp) whose
// chunks arbench maps itself (cuda_peer_provider.hpp); the start gate's flags are a slice of it,
// so its device barrier works wherever the custom kernels do. A machine without NCCL, or whose
// NCCL refuses symmetric memory, still runs every custom kernel on it; the nccl variants need
// the nccl fabric (kernels/fabric/nccl/).
//
// Before anything trusts the mappings, the functional peer check (kernels/fabric/host/peer_check.hpp)
// moves a pattern through every pair's mapping of a probe slice of the arena, as the nccl fabric
// does through its windows: a pair that reports P2P but whose data does not arrive (ACS / IOMMU
// redirection) turns symmetric memory off, naming the pair.
//
// When the arena cannot be mapped (a pair of GPUs without a peer-to-peer path, a driver without
// the virtual memory API) or the check finds a broken pair, the fabric still runs (host-word
// start gate), and symmetric_unsupported_reason() says why, naming the pair: the custom kernels
// are skipped.
#pragma once

#include <memory>
#include <string>

#include "arbench/core/peer_access.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"

namespace arbench {

class PeerFabric final : public CudaFabric {
 public:
  // `planted`: the test seam's broken pair (the peer check sees its data go elsewhere).
  PeerFabric(int world, double timeout_s, BrokenPair planted = {});
  ~PeerFabric() override;
  Backend backend() const override { return Backend::cuda; }
  std::string describe() const override;
  std::string symmetric_unsupported_reason() const override { return symmetric_reason_; }
  const PeerAccess* peer_access() const override { return peer_access_.n > 0 ? &peer_access_ : nullptr; }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  void reserve_symmetric(std::size_t bytes) override;
  const SymmArena* arena() const { return arena_.get(); }

 private:
  std::unique_ptr<SymmArena> arena_;
  std::string symmetric_reason_;
  PeerAccess peer_access_;
};

// What an arena of `f` asks of it: zero-fills on the rank's stream, bounded waits for idle.
ArenaHooks cuda_arena_hooks(const CudaFabric& f);

// The functional peer check (kernels/fabric/host/peer_check.hpp) of the ranks `f` drives, through a
// probe slice of `arena`, collective over `f.processes()`: what it found, and in `why` the broken
// pairs (empty when every pair moved its data) or why the probe memory could not be had.
PeerAccess check_arena_peers(CudaFabric& f, SymmArena& arena, BrokenPair planted, std::string& why);

// The start gate's flags, a slice of `arena`, or null with the reason in `why` (also set when
// `arena` is null). Collective.
std::unique_ptr<RankBuffers> gate_flags_from(SymmArena* arena, std::string& why);

}  // namespace arbench
