#include "kernels/fabric/peer/peer_fabric.hpp"

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"
#include "kernels/fabric/peer/cuda_driver.hpp"
#include "kernels/fabric/peer/cuda_peer_provider.hpp"

namespace arbench {
namespace {

std::vector<int> first_devices(int world) {
  std::vector<int> d(static_cast<std::size_t>(world));
  for (int i = 0; i < world; ++i) d[static_cast<std::size_t>(i)] = i;
  return d;
}

}  // namespace

ArenaHooks cuda_arena_hooks(const CudaFabric& f) {
  ArenaHooks h;
  h.zero = [&f](int rank, void* ptr, std::size_t bytes) {
    ARB_CUDA_CHECK(cudaSetDevice(f.device_of(rank)));
    ARB_CUDA_CHECK(cudaMemsetAsync(ptr, 0, bytes, f.stream(rank)));
    if (!wait_stream(f.stream(rank), deadline_in(f.timeout_s() * 2)))
      throw HangError("zero-filling a symmetric buffer on rank " + std::to_string(rank) +
                      " did not finish within the bound");
  };
  h.idle = [&f] { return !f.aborted() && f.quiesce(); };
  return h;
}

std::unique_ptr<RankBuffers> gate_flags_from(SymmArena* arena, std::string& why) {
  if (arena == nullptr) return nullptr;
  try {
    return arena->alloc(StartGate::kGateFlagWords * sizeof(std::uint32_t));
  } catch (const Error& e) {  // the pair the provider could not map, or a driver failure
    why = e.what();
  }
  return nullptr;
}

PeerFabric::PeerFabric(int world, double timeout_s) : CudaFabric(first_devices(world), timeout_s) {
  try {
    auto provider = std::make_unique<CudaPeerProvider>(cuda_driver(), first_devices(world), 0, world, solo_world(),
                                                       timeout_s);
    arena_ = std::make_unique<SymmArena>(std::move(provider), cuda_arena_hooks(*this), ArenaRanks{0, world, world},
                                         solo_world());
  } catch (const EnvironmentError& e) {  // a driver or GPU without what the provider needs
    symmetric_reason_ = e.what();
  }
  std::unique_ptr<RankBuffers> flags = gate_flags_from(arena_.get(), symmetric_reason_);
  build_gate(std::move(flags), symmetric_reason_);
}

PeerFabric::~PeerFabric() {
  release_gate();  // its flags are a slice of the arena
  arena_.reset();  // unmapped only once the streams are idle (bounded)
}

std::string PeerFabric::describe() const {
  const std::string memory = symmetric_reason_.empty() ? "cuda provider (arbench's peer mappings, no NCCL)"
                                                       : "unavailable (" + symmetric_reason_ + ")";
  return std::to_string(world()) + " GPUs; symmetric memory: " + memory + "; start gate: " + gate_description();
}

std::unique_ptr<RankBuffers> PeerFabric::alloc(std::size_t bytes, Placement placement) {
  if (placement == Placement::local) return std::make_unique<DeviceBuffers>(*this, bytes, false);
  if (!symmetric_reason_.empty()) throw EnvironmentError("symmetric memory unavailable: " + symmetric_reason_);
  return arena_->alloc(bytes);
}

void PeerFabric::reserve_symmetric(std::size_t bytes) {
  if (symmetric_reason_.empty()) arena_->reserve(bytes);
}

}  // namespace arbench
