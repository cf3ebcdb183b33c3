#include "kernels/fabric/peer/peer_fabric.hpp"

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"
#include "kernels/fabric/host/peer_check.hpp"
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

PeerAccess check_arena_peers(CudaFabric& f, SymmArena& arena, BrokenPair planted, std::string& why) {
  World& w = f.processes();
  const bool several = w.multi_process();
  std::unique_ptr<RankBuffers> probe_memory;
  std::string failure;
  try {
    probe_memory = arena.alloc(kPeerProbeBytes);  // collective across processes
  } catch (const Error& e) {
    failure = e.what();
  }
  why = several ? first_failure(w, failure, "mapping the peer check's memory") : failure;
  if (!why.empty()) return {};
  const int first = several ? w.rank() : 0, local = several ? 1 : f.world();
  std::vector<int> devices;
  std::vector<cudaStream_t> streams;
  for (int r = first; r < first + local; ++r) {
    devices.push_back(f.device_of(r));
    streams.push_back(f.stream(r));
  }
  CudaPeerProbe probe(devices, streams, first, *probe_memory, planted);
  PeerAccess found = check_peer_access(
      probe, f.world(), [&](int r) { return r >= first && r < first + local; }, {}, w, kPeerCheckBound_s, 1,
      several ? "arbench's CUDA peer mappings (cuMemMap of imported fds), one process per GPU"
              : "arbench's CUDA peer mappings (cuMemMap)");
  why = broken_peer_reason(found);
  return found;
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

PeerFabric::PeerFabric(int world, double timeout_s, BrokenPair planted) : CudaFabric(first_devices(world), timeout_s) {
  try {
    auto provider = std::make_unique<CudaPeerProvider>(cuda_driver(), first_devices(world), 0, world, solo_world(),
                                                       timeout_s);
    arena_ = std::make_unique<SymmArena>(std::move(provider), cuda_arena_hooks(*this), ArenaRanks{0, world, world},
                                         solo_world());
  } catch (const EnvironmentError& e) {  // a driver or GPU without what the provider needs
    symmetric_reason_ = e.what();
  }
  if (arena_) peer_access_ = check_arena_peers(*this, *arena_, planted, symmetric_reason_);
  if (!symmetric_reason_.empty()) arena_.reset();  // nothing may use the mappings (and the gate: the host word)
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
