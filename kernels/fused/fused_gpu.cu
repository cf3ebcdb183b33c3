// The GPU variants of the allreduce_rmsnorm family on the cuda and single_gpu fabrics:
// FusedVariant (support, scratch, epochs, error records, component timing) plus the grid choice
// and the launches. unfused-nccl's all-reduce half is the `nccl` variant itself.
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/gpu_variant.hpp"
#include "kernels/nccl/nccl_allreduce.hpp"
#include "kernels/symm/symm_kernels.hpp"

namespace arbench {
namespace {

class FusedGpu final : public GpuOnly<FusedVariant> {
 public:
  using GpuOnly::GpuOnly;

 protected:
  std::unique_ptr<Variant> make_allreduce() const override {
    if (algo_ == FusedAlgo::unfused_nccl) return nccl_entry().gpu();
    SymmOptions o;
    o.start_epoch = opt_.start_epoch;
    return make_symm_gpu(SymmAlgo::oneshot_pull, o);
  }
  // Ranks sharing a device (N on single_gpu) split its SMs (FusedLaunchPolicy).
  int device_sm_count(const Fabric& f) const override { return device_sms(f); }
  int norm_blocks(int tokens) const override { return algo::FusedLaunchPolicy::norm_blocks(tokens, 0); }
  int threads() const override { return algo::FusedLaunchPolicy::kThreads; }
  void run_norm(int /*rank*/, const algo::NormArgs& a, int blocks, Stream stream) override {
    launch_add_rmsnorm(a, dtype_, blocks, stream);
  }
  void run_fused(const algo::FusedArgs& a, int blocks, Stream stream) override {
    if (algo_ == FusedAlgo::fused_twoshot)
      launch_fused_twoshot(a, dtype_, blocks, stream);
    else
      launch_fused_oneshot(a, dtype_, blocks, stream);
  }
};

}  // namespace

std::unique_ptr<Variant> make_fused_gpu(FusedAlgo algo, FusedOptions opt) { return std::make_unique<FusedGpu>(algo, opt); }

VariantEntry fused_gpu_entry(FusedAlgo algo) {
  VariantEntry e = gpu_entry(text_of(kFusedText, algo), [algo] { return make_fused_gpu(algo); });
  if (algo == FusedAlgo::unfused_nccl) e.no_host_reason = kUnfusedNcclNoHost;
  return e;
}

}  // namespace arbench
