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

// ---- PeerArenaFabric ----------------------------------------------------------------------

PeerArenaFabric::~PeerArenaFabric() {
  release_gate();
  arena_.reset();
}

void PeerArenaFabric::reserve_symmetric(std::size_t bytes) {
  if (symmetric_reason_.empty()) arena_->reserve(bytes);
}

ArenaHooks PeerArenaFabric::arena_hooks() const {
  ArenaHooks h;
  h.zero = [this](int rank, void* ptr, std::size_t bytes) {
    ARB_CUDA_CHECK(cudaSetDevice(device_of(rank)));
    ARB_CUDA_CHECK(cudaMemsetAsync(ptr, 0, bytes, stream(rank)));
    if (!wait_stream(stream(rank), deadline_in(timeout_s() * 2)))
      throw HangError("zero-filling a symmetric buffer on rank " + std::to_string(rank) +
                      " did not finish within the bound");
  };
  h.idle = [this] { return !aborted() && quiesce(); };
  return h;
}

void PeerArenaFabric::check_arena_peers(BrokenPair planted) {
  World& w = processes();
  const bool several = w.multi_process();
  std::unique_ptr<RankBuffers> probe_memory;
  std::string failure;
  try {
    probe_memory = arena_->alloc(kPeerProbeBytes);  // collective across processes
  } catch (const Error& e) {
    failure = e.what();
  }
  symmetric_reason_ = several ? first_failure(w, failure, "mapping the peer check's memory") : failure;
  if (!symmetric_reason_.empty()) {
    peer_access_ = {};
    return;
  }
  const int first = several ? w.rank() : 0, local = several ? 1 : world();
  std::vector<int> devices;
  std::vector<cudaStream_t> streams;
  for (int r = first; r < first + local; ++r) {
    devices.push_back(device_of(r));
    streams.push_back(stream(r));
  }
  CudaPeerProbe probe(devices, streams, first, *probe_memory, planted);
  peer_access_ = check_peer_access(
      probe, world(), [&](int r) { return r >= first && r < first + local; }, {}, w, kPeerCheckBound_s, 1,
      several ? "arbench's CUDA peer mappings (cuMemMap of imported fds), one process per GPU"
              : "arbench's CUDA peer mappings (cuMemMap)");
  symmetric_reason_ = broken_peer_reason(peer_access_);
}

std::unique_ptr<RankBuffers> PeerArenaFabric::gate_flags(std::string& why) {
  if (arena_ == nullptr) return nullptr;
  try {
    return arena_->alloc(StartGate::kGateFlagWords * sizeof(std::uint32_t));
  } catch (const Error& e) {  // the pair the provider could not map, or a driver failure
    why = e.what();
  }
  return nullptr;
}

std::string PeerArenaFabric::memory_description() const {
  return symmetric_reason_.empty() ? "cuda provider (arbench's peer mappings, no NCCL)"
                                   : "unavailable (" + symmetric_reason_ + ")";
}

// ---- PeerFabric ---------------------------------------------------------------------------

PeerFabric::PeerFabric(int world, double timeout_s, BrokenPair planted)
    : PeerArenaFabric(first_devices(world), timeout_s) {
  try {
    auto provider = std::make_unique<CudaPeerProvider>(cuda_driver(), first_devices(world), 0, world, solo_world(),
                                                       timeout_s);
    arena_ = std::make_unique<SymmArena>(std::move(provider), arena_hooks(), ArenaRanks{0, world, world},
                                         solo_world());
  } catch (const EnvironmentError& e) {  // a driver or GPU without what the provider needs
    symmetric_reason_ = e.what();
  }
  if (arena_) check_arena_peers(planted);
  if (!symmetric_reason_.empty()) arena_.reset();  // nothing may use the mappings (and the gate: the host word)
  std::unique_ptr<RankBuffers> flags = gate_flags(symmetric_reason_);
  build_gate(std::move(flags), symmetric_reason_);
}

std::string PeerFabric::describe() const {
  return std::to_string(world()) + " GPUs; symmetric memory: " + memory_description() +
         "; start gate: " + gate_description();
}

}  // namespace arbench
