// The GPU variants oneshot-pull, oneshot-push and twoshot on the cuda and single_gpu fabrics:
// SymmVariant (support, scratch, epochs, error records) plus the grid choice and the launch.
#include "arbench/algo/launch_policy.hpp"
#include "kernels/gpu_variant.hpp"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {
namespace {

class SymmGpu final : public GpuOnly<SymmVariant> {
 public:
  using GpuOnly::GpuOnly;

  void launch(int rank, Stream stream) override {
    const algo::SymmArgs a = args_for(rank);
    switch (algo_) {
      case SymmAlgo::oneshot_pull: return launch_oneshot_pull(a, dtype_, blocks(), stream);
      case SymmAlgo::oneshot_push: return launch_oneshot_push(a, dtype_, blocks(), stream);
      case SymmAlgo::twoshot: return launch_twoshot(a, dtype_, blocks(), stream);
    }
  }

 protected:
  // Ranks sharing a device (N on single_gpu, 1 on the cuda fabric) split its SMs, so that
  // every block of every rank is resident at once (their waits depend on each other).
  int choose_blocks(const Fabric& f, const Tuning& t, std::size_t packs) const override {
    return grid_for(device_sms(f), f.ranks_per_device(), t.blocks, packs);
  }
  int threads() const override { return algo::SymmLaunchPolicy::kThreads; }
};

}  // namespace

std::unique_ptr<Variant> make_symm_gpu(SymmAlgo algo, SymmOptions opt) {
  return std::make_unique<SymmGpu>(algo, opt);
}

VariantEntry symm_gpu_entry(SymmAlgo algo) {
  return gpu_entry(text_of(kSymmText, algo), [algo] { return make_symm_gpu(algo); });
}

}  // namespace arbench
