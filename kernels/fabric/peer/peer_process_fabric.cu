#include "kernels/fabric/peer/peer_process_fabric.hpp"

#include "kernels/fabric/cuda/process/process_device.hpp"
#include "kernels/fabric/peer/cuda_driver.hpp"
#include "kernels/fabric/peer/cuda_peer_provider.hpp"

namespace arbench {

PeerProcessFabric::PeerProcessFabric(World& processes, double timeout_s, BrokenPair planted)
    : PeerArenaFabric(agree_process_device(processes), processes.rank(), processes.size(), processes, timeout_s) {
  World& w = processes;
  symmetric_reason_ = custom_kernels_across_processes_problem(w, device_of(w.rank()));
  if (symmetric_reason_.empty()) {
    std::string failure;
    PeerDriver* driver = nullptr;
    try {
      driver = &cuda_driver();
    } catch (const Error& e) {
      failure = e.what();
    }
    failure = first_failure(w, failure, "loading the CUDA driver's virtual memory API");
    std::unique_ptr<PeerProvider> provider;
    if (failure.empty()) {
      try {  // collective; every process throws the same error, or none does
        provider = std::make_unique<CudaPeerProvider>(*driver, std::vector<int>{device_of(w.rank())}, w.rank(),
                                                      w.size(), w, timeout_s);
      } catch (const Error& e) {
        failure = e.what();
      }
    }
    symmetric_reason_ = failure;
    if (symmetric_reason_.empty())
      arena_ = std::make_unique<SymmArena>(std::move(provider), arena_hooks(),
                                           ArenaRanks{w.rank(), 1, w.size()}, w);
    // Collective; every process gets the same matrix and the same reason.
    if (arena_) check_arena_peers(planted);  // with one GPU per process, no bare-device fallback
    if (!symmetric_reason_.empty()) arena_.reset();
  }
  std::string why;
  std::unique_ptr<RankBuffers> flags = gate_flags(why);  // collective: a map and an agreement
  if (arena_) {
    symmetric_reason_ = first_failure(w, why, "mapping the start gate's flags");
    if (!symmetric_reason_.empty()) flags.reset();
  }
  build_gate(std::move(flags), symmetric_reason_);
}

std::string PeerProcessFabric::describe() const {
  const WorldLayout& l = processes().layout();
  return std::to_string(world()) + " processes on " + std::to_string(l.nodes) + (l.nodes == 1 ? " node" : " nodes") +
         ", one GPU each; symmetric memory: " + memory_description() + "; start gate: MPI barrier, then " +
         gate_description();
}

}  // namespace arbench
