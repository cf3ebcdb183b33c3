// The GPU variants island-oneshot, island-twoshot, fused-island-oneshot and fused-island-twoshot on the cuda and
// single_gpu fabrics: IslandVariant (support, paths, memory, epochs, error records) plus the grid
// choice and the launch.
#include <string>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/gpu_variant.hpp"
#include "kernels/island/island_kernels.hpp"

namespace arbench {
namespace {

class IslandGpu final : public GpuOnly<IslandVariant> {
 public:
  using GpuOnly::GpuOnly;

  void launch(int rank, Stream stream) override {
    switch (algo_) {
      case IslandAlgo::oneshot: return launch_island_oneshot(island_args(rank), dtype_, blocks(), stream);
      case IslandAlgo::twoshot: return launch_island_twoshot(island_args(rank), dtype_, blocks(), stream);
      case IslandAlgo::fused_oneshot: return launch_fused_island(fused_args(rank), dtype_, blocks(), stream);
      case IslandAlgo::fused_twoshot: return launch_fused_island_twoshot(fused_args(rank), dtype_, blocks(), stream);
    }
  }

 protected:
  // Ranks sharing a device (N on single_gpu, 1 on the cuda fabric) split its SMs, so that every
  // block of every rank is resident at once (their waits depend on each other).
  int choose_blocks(const Fabric& f, const Tuning& t, std::size_t work) const override {
    return grid_for(device_sms(f), f.ranks_per_device(), t.blocks, work);
  }
  int threads() const override {
    return fused() ? algo::FusedLaunchPolicy::kThreads : algo::SymmLaunchPolicy::kThreads;
  }
};

}  // namespace

std::unique_ptr<IslandVariant> make_island_gpu(IslandAlgo algo, IslandOptions opt) {
  return std::make_unique<IslandGpu>(algo, opt);
}

// Each with its named configuration `[host-memory]` (IslandOptions::cross_host_memory).
VariantEntry island_gpu_entry(IslandAlgo algo) {
  VariantEntry e = gpu_entry(text_of(kIslandText, algo), [algo] { return make_island_gpu(algo); });
  e.configs = {kHostMemoryConfig};
  e.make_configured = [algo](const std::string&) {
    IslandOptions o;
    o.cross_host_memory = true;
    return std::unique_ptr<Variant>(make_island_gpu(algo, o));
  };
  return e;
}

}  // namespace arbench
