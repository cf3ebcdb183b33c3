// The GPU variants oneshot-fp8 and twoshot-fp8 on the cuda and single_gpu fabrics (both
// peer-memory providers, eager and graph, like the exact symm kernels): Fp8Variant plus the grid
// choice and the launch.
#include "arbench/algo/launch_policy.hpp"
#include "kernels/fp8/fp8_kernels.hpp"
#include "kernels/gpu_variant.hpp"

namespace arbench {
namespace {

class Fp8Gpu final : public GpuOnly<Fp8Variant> {
 public:
  using GpuOnly::GpuOnly;

  void launch(int rank, Stream stream) override {
    const algo::SymmArgs a = args_for(rank);
    if (fp8_ == Fp8Algo::oneshot) return launch_oneshot_fp8(a, dtype_, blocks(), stream);
    launch_twoshot_fp8(a, dtype_, blocks(), stream);
  }

 protected:
  // As the exact symm kernels: ranks sharing a device split its SMs so every block is resident.
  int choose_blocks(const Fabric& f, const Tuning& t, std::size_t packs) const override {
    return grid_for(device_sms(f), f.ranks_per_device(), t.blocks, packs);
  }
  int threads() const override { return algo::Fp8LaunchPolicy::kThreads; }
};

}  // namespace

std::unique_ptr<Variant> make_fp8_gpu(Fp8Algo algo, SymmOptions opt) { return std::make_unique<Fp8Gpu>(algo, opt); }

VariantEntry fp8_gpu_entry(Fp8Algo algo) {
  VariantEntry e = gpu_entry(text_of(kFp8Text, algo), [algo] { return make_fp8_gpu(algo); });
  e.lossy = true;
  return e;
}

}  // namespace arbench
