// PeerFabric: the cuda backend on the `cuda` provider: one rank per GPU, driven by one host
// thread, and no NCCL at all. Symmetric memory is one SymmArena per fabric (symm_arena.hpp) whose
// chunks arbench maps itself (cuda_peer_provider.hpp); the start gate's flags are a slice of it,
// so its device barrier works wherever the custom kernels do. A machine without NCCL, or whose
// NCCL refuses symmetric memory, still runs every custom kernel on it; the nccl variants need
// the nccl fabric (kernels/fabric/nccl/).
//
// When the arena cannot be mapped (a pair of GPUs without a peer-to-peer path, a driver without
// the virtual memory API), the fabric still runs (host-word start gate), and
// symmetric_unsupported_reason() says why, naming the pair: the custom kernels are skipped.
#pragma once

#include <memory>
#include <string>

#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"

namespace arbench {

class PeerFabric final : public CudaFabric {
 public:
  PeerFabric(int world, double timeout_s);
  ~PeerFabric() override;
  Backend backend() const override { return Backend::cuda; }
  std::string describe() const override;
  std::string symmetric_unsupported_reason() const override { return symmetric_reason_; }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override;
  void reserve_symmetric(std::size_t bytes) override;
  const SymmArena* arena() const { return arena_.get(); }

 private:
  std::unique_ptr<SymmArena> arena_;
  std::string symmetric_reason_;
};

// What an arena of `f` asks of it: zero-fills on the rank's stream, bounded waits for idle.
ArenaHooks cuda_arena_hooks(const CudaFabric& f);

// The start gate's flags, a slice of `arena`, or null with the reason in `why` (also set when
// `arena` is null). Collective.
std::unique_ptr<RankBuffers> gate_flags_from(SymmArena* arena, std::string& why);

}  // namespace arbench
