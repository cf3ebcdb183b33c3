// ArenaHostFabric: the host fabric (CPU threads run the host twins) whose symmetric buffers are
// slices of a SymmArena mapped by the cuda provider on the fake driver (memfd-backed "GPU
// memory"): the same arena, slicing and provider code as the cuda backend's PeerFabric, with
// the twins checking every result. It counts how often the arena grew.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../fabric/fake_peer_driver.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/fabric/peer/cuda_peer_provider.hpp"
#include "kernels/fabric/peer/symm_arena.hpp"

namespace arbench::testing {

class ArenaHostFabric final : public Fabric {
 public:
  ArenaHostFabric(int world, double timeout_s, std::size_t granularity = 64 * 1024)
      : host_(world, timeout_s), driver_(granularity) {
    std::vector<int> gpus;
    for (int r = 0; r < world; ++r) gpus.push_back(r);
    ArenaHooks hooks;
    hooks.zero = [](int, void* p, std::size_t bytes) { std::memset(p, 0, bytes); };
    hooks.idle = [] { return true; };  // host twins: every op has ended when run() returns
    arena_ = std::make_unique<SymmArena>(
        std::make_unique<CudaPeerProvider>(driver_, gpus, 0, world, solo_world(), timeout_s), std::move(hooks),
        ArenaRanks{0, world, world}, solo_world());
  }

  Backend backend() const override { return Backend::host; }
  int world() const override { return host_.world(); }
  std::string describe() const override { return host_.describe() + "; " + arena_->describe(); }
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes, Placement placement) override {
    if (placement == Placement::local) return host_.alloc(bytes, placement);
    return arena_->alloc(bytes);
  }
  void reserve_symmetric(std::size_t bytes) override { arena_->reserve(bytes); }
  void upload(int rank, void* dst, const void* src, std::size_t bytes) override { host_.upload(rank, dst, src, bytes); }
  void download(int rank, void* dst, const void* src, std::size_t bytes) override {
    host_.download(rank, dst, src, bytes);
  }
  void run(const RankOp& op) override { host_.run(op); }
  IsolatedTimes time_isolated(const RankOp& op, int samples) override { return host_.time_isolated(op, samples); }
  double time_pipelined(const RankOp& op, int ops, int reps) override { return host_.time_pipelined(op, ops, reps); }
  double timeout_s() const override { return host_.timeout_s(); }

  const SymmArena& arena() const { return *arena_; }
  FakePeerDriver& driver() { return driver_; }

 private:
  HostFabric host_;
  FakePeerDriver driver_;
  std::unique_ptr<SymmArena> arena_;  // after driver_: released before it
};

}  // namespace arbench::testing
