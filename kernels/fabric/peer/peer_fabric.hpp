// The cuda backend on the `cuda` provider, without NCCL: PeerFabric (one rank per GPU, every GPU
// driven by one host thread) and, beside it in peer_process_fabric.hpp, PeerProcessFabric (one
// process per GPU). What both do with their symmetric memory is their base, PeerArenaFabric, here:
// the memory is one SymmArena per fabric (symm_arena.hpp) whose chunks arbench maps itself
// (cuda_peer_provider.hpp); a symmetric buffer is a slice of it, and so are the start gate's flags,
// so its device barrier works wherever the custom kernels do. A machine without NCCL, or whose
// NCCL refuses symmetric memory, still runs every custom kernel on it; the nccl variants need the
// nccl fabric (kernels/fabric/nccl/).
//
// Before anything trusts the mappings, the functional peer check (kernels/fabric/host/peer_check/peer_check.hpp)
// moves a pattern through every pair's mapping of a probe slice of the arena, as the nccl fabric
// does through its windows: a pair that reports P2P but whose data does not arrive (ACS / IOMMU
// redirection) turns symmetric memory off, naming the pair.
//
// When the arena cannot be mapped (a pair of GPUs without a peer-to-peer path, a driver without
// the virtual memory API) or the check finds a broken pair, the fabric still runs (host-word
// start gate), and symmetric_unsupported_reason() says why, naming the pair: the custom kernels
// are skipped. Without an arena the check runs on bare devices instead, so reaches() (the island
// variants) still knows which reported pairs really move data.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "arbench/core/peer_access.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"

namespace arbench {

// What the fabrics of the `cuda` provider share: they differ in how the arena is built (which
// GPUs, which World), and do alike what follows, so the two cannot disagree on it.
class PeerArenaFabric : public CudaFabric {
 public:
  // The gate first (its flags are a slice of the arena), then the arena: unmapped only once the
  // streams are idle (bounded).
  ~PeerArenaFabric() override;
  Backend backend() const override { return Backend::cuda; }
  void reserve_symmetric(std::size_t bytes) override;
  const SymmArena* arena() const { return arena_.get(); }

 protected:
  using CudaFabric::CudaFabric;
  std::unique_ptr<RankBuffers> alloc_symmetric(std::size_t bytes) override { return arena_->alloc(bytes); }
  // What the arena asks of this fabric: zero-fills on the rank's stream, bounded waits for idle.
  ArenaHooks arena_hooks() const;
  // The functional peer check of the ranks this fabric drives, through a probe slice of arena_
  // (words and, one process driving every GPU, bulk transfers), collective over processes(); or,
  // when there is no arena or it cannot map the probe (one process), the same check on bare
  // devices (peer_fallback.hpp). Sets peer_access_ (kept either way), and symmetric_reason_ to the
  // broken pairs or why the arena could not be had. A probe that never finished leaves the arena
  // mapped for good (arena_ released); a GPU that faulted for good throws EnvironmentError.
  void check_arena_peers(BrokenPair planted);
  // The start gate's flags, a slice of arena_, or null with the reason in `why` (also null when
  // there is no arena). Collective.
  std::unique_ptr<RankBuffers> gate_flags(std::string& why);
  // "cuda provider (...)" or "unavailable (why)", for describe().
  std::string memory_description() const;

  std::unique_ptr<SymmArena> arena_;
};

class PeerFabric final : public PeerArenaFabric {
 public:
  // `planted`: the test seam's broken pair (the peer check sees its data go elsewhere).
  PeerFabric(int world, double timeout_s, BrokenPair planted = {});
  std::string describe() const override;
};

}  // namespace arbench
