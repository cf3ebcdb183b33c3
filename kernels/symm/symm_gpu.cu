// The GPU variants oneshot-pull, oneshot-push and twoshot on the cuda and single_gpu fabrics:
// SymmVariant (support, scratch, epochs, error records) plus the grid choice and the launch.
#include <cuda_runtime.h>

#include <string>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {
namespace {

class SymmGpu final : public SymmVariant {
 public:
  SymmGpu(SymmAlgo algo, SymmOptions opt) : SymmVariant(algo, opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() == Backend::host)
      return Support::no("the GPU kernel needs a cuda or single-gpu fabric");
    return SymmVariant::supports(c, f);
  }

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
    int sms = 0;
    ARB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, f.device_of(0)));
    return algo::SymmLaunchPolicy::blocks(packs, sms, f.ranks_per_device(), t.blocks);
  }
  int threads() const override { return algo::SymmLaunchPolicy::kThreads; }
};

VariantEntry gpu_entry(SymmAlgo algo) {
  VariantEntry e;
  e.name = symm_algo_name(algo);
  e.family = Family::allreduce;
  e.gpu = [algo] { return make_symm_gpu(algo); };
  return e;
}

}  // namespace

std::unique_ptr<Variant> make_symm_gpu(SymmAlgo algo, SymmOptions opt) {
  return std::make_unique<SymmGpu>(algo, opt);
}

VariantEntry oneshot_pull_gpu_entry() { return gpu_entry(SymmAlgo::oneshot_pull); }
VariantEntry oneshot_push_gpu_entry() { return gpu_entry(SymmAlgo::oneshot_push); }
VariantEntry twoshot_gpu_entry() { return gpu_entry(SymmAlgo::twoshot); }

}  // namespace arbench
