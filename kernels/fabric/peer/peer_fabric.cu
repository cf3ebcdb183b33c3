#include "kernels/fabric/peer/peer_fabric.hpp"

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"
#include "kernels/fabric/host/peer_check/peer_check.hpp"
#include "kernels/fabric/host/peer_check/peer_fallback.hpp"
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
  const int first = several ? w.rank() : 0, local = several ? 1 : world();
  std::vector<int> devices;
  for (int r = first; r < first + local; ++r) devices.push_back(device_of(r));
  // Bulk transfers through the arena too, one process driving every GPU (with one process per
  // GPU the words only: each process would hold every peer's bulk regions).
  PeerCheckOptions opt;
  opt.bulk_bytes = several ? 0 : kPeerBulkBytes;
  FabricPeerCheck how;
  how.world = world();
  how.setup_failure = arena_ ? symmetric_reason_ : (symmetric_reason_.empty() ? "no arena" : symmetric_reason_);
  how.map_probe_memory = [&]() -> std::unique_ptr<RankBuffers> {
    std::unique_ptr<RankBuffers> mem;
    std::string failure;
    try {
      mem = arena_->alloc(peer_probe_bytes(world(), opt.bulk_bytes));  // collective across processes
    } catch (const Error& e) {
      failure = e.what();
    }
    if (several) failure = first_failure(w, failure, "mapping the peer check's memory");
    if (!failure.empty()) throw EnvironmentError(failure);
    return mem;
  };
  how.check_mapped = [&](const RankBuffers& mem) {
    CudaPeerProbe probe(devices, first, mem, planted);
    CheckedPeers c;
    opt.fatal = &c.fatal;
    c.access = check_peer_access(
        probe, world(), [&](int r) { return r >= first && r < first + local; }, {}, w, kPeerCheckBound_s, 1,
        several ? "arbench's CUDA peer mappings (cuMemMap of imported fds), one process per GPU"
                : "arbench's CUDA peer mappings (cuMemMap)",
        "GPU", opt);
    c.idle = probe.idle();
    return c;
  };
  if (!several)  // the arena could not be had: the same check on bare devices, its matrix kept
    how.check_bare = [&] { return check_bare_devices(devices, planted); };
  PeerCheckOutcome out = run_fabric_peer_check(how);
  peer_access_ = std::move(out.access);
  symmetric_reason_ = out.symmetric_reason;
  if (out.stuck) {  // a probe kernel may still touch the arena: it stays mapped until the process exits
    (void)out.probe_memory.release();
    (void)arena_.release();
  }
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
  check_arena_peers(planted);  // through the arena, or on bare devices when there is none
  if (!symmetric_reason_.empty()) arena_.reset();  // nothing may use the mappings (and the gate: the host word)
  std::unique_ptr<RankBuffers> flags = gate_flags(symmetric_reason_);
  build_gate(std::move(flags), symmetric_reason_);
}

std::string PeerFabric::describe() const {
  return std::to_string(world()) + " GPUs; symmetric memory: " + memory_description() +
         "; start gate: " + gate_description();
}

}  // namespace arbench
