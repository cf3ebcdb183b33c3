// The GPU variants island-oneshot, island-twoshot, fused-island-oneshot and fused-island-twoshot on the cuda and
// single_gpu fabrics: IslandVariant (support, paths, memory, epochs, error records) plus the grid
// choice and the launch.
#include <cuda_runtime.h>

#include <string>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/island/island_kernels.hpp"

namespace arbench {
namespace {

class IslandGpu final : public IslandVariant {
 public:
  IslandGpu(IslandAlgo algo, IslandOptions opt) : IslandVariant(algo, opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() == Backend::host) return Support::no("the GPU kernel needs a cuda or single-gpu fabric");
    return IslandVariant::supports(c, f);
  }

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
    int sms = 0;
    ARB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, f.device_of(0)));
    return fused() ? algo::FusedLaunchPolicy::blocks(static_cast<int>(work), sms, f.ranks_per_device(), t.blocks)
                   : algo::SymmLaunchPolicy::blocks(work, sms, f.ranks_per_device(), t.blocks);
  }
  int threads() const override {
    return fused() ? algo::FusedLaunchPolicy::kThreads : algo::SymmLaunchPolicy::kThreads;
  }
};

VariantEntry gpu_entry(IslandAlgo algo) {
  VariantEntry e;
  e.name = island_algo_name(algo);
  e.family = is_fused(algo) ? Family::allreduce_rmsnorm : Family::allreduce;
  e.summary = island_summary(algo);
  e.gpu = [algo] { return make_island_gpu(algo); };
  e.configs = {kHostMemoryConfig};
  e.make_configured = [algo](const std::string&) {
    IslandOptions o;
    o.cross_host_memory = true;
    return std::unique_ptr<Variant>(make_island_gpu(algo, o));
  };
  return e;
}

}  // namespace

std::unique_ptr<IslandVariant> make_island_gpu(IslandAlgo algo, IslandOptions opt) {
  return std::make_unique<IslandGpu>(algo, opt);
}

VariantEntry island_oneshot_gpu_entry() { return gpu_entry(IslandAlgo::oneshot); }
VariantEntry island_twoshot_gpu_entry() { return gpu_entry(IslandAlgo::twoshot); }
VariantEntry fused_island_oneshot_gpu_entry() { return gpu_entry(IslandAlgo::fused_oneshot); }
VariantEntry fused_island_twoshot_gpu_entry() { return gpu_entry(IslandAlgo::fused_twoshot); }

}  // namespace arbench
