#include "kernels/fused/fused_twins.hpp"

#include <array>

#include "arbench/algo/fused_twoshot.hpp"
#include "arbench/algo/norm_rows.hpp"
#include "kernels/mem_host.hpp"
#include "kernels/symm/symm_twins.hpp"

namespace arbench {
namespace {

// A twin block is one thread (BlockCtx thread 0 of 1) that runs all kNormLanes lanes itself.
using Lanes = std::array<float, algo::kNormLanes>;

template <DType D>
void norm_twin(const algo::NormArgs& a, int blocks) {
  Lanes lanes{};
  for (int b = 0; b < blocks; ++b) algo::norm_rows_block<HostMem, D>(a, algo::BlockCtx{b, blocks, 0, 1}, lanes.data());
}

// Runs every block of one rank in order; stops at the first timeout (it is recorded; peers
// waiting on the missing blocks time out on their own).
template <DType D>
void fused_twin(FusedAlgo algo, const algo::FusedArgs& a, int blocks) {
  Lanes lanes{};
  for (int b = 0; b < blocks; ++b) {
    const algo::BlockCtx c{b, blocks, 0, 1};
    const bool ok = algo == FusedAlgo::fused_twoshot ? algo::fused_twoshot_block<HostMem, D>(a, c, lanes.data())
                                                     : algo::fused_oneshot_block<HostMem, D>(a, c, lanes.data());
    if (!ok) return;
  }
}

class FusedTwin final : public FusedVariant {
 public:
  FusedTwin(FusedAlgo algo, FusedOptions opt) : FusedVariant(algo, opt) {}

 protected:
  std::unique_ptr<Variant> make_allreduce() const override {
    SymmOptions o;
    o.start_epoch = opt_.start_epoch;
    return make_symm_twin(SymmAlgo::oneshot_pull, o);
  }
  int sms(const Fabric&) const override { return algo::SymmLaunchPolicy::kHostSms; }
  int ranks_per_device(const Fabric&) const override { return 1; }
  int norm_blocks(int tokens) const override {
    return tokens < algo::SymmLaunchPolicy::kHostSms ? tokens : algo::SymmLaunchPolicy::kHostSms;
  }
  int threads() const override { return 1; }

  void run_norm(const algo::NormArgs& a, int blocks, Stream) override {
    switch (dtype_) {  // the one dtype -> template switch
      case DType::bf16: return norm_twin<DType::bf16>(a, blocks);
      case DType::fp16: return norm_twin<DType::fp16>(a, blocks);
      case DType::fp32: return norm_twin<DType::fp32>(a, blocks);
    }
  }
  void run_fused(const algo::FusedArgs& a, int blocks, Stream) override {
    switch (dtype_) {
      case DType::bf16: return fused_twin<DType::bf16>(algo_, a, blocks);
      case DType::fp16: return fused_twin<DType::fp16>(algo_, a, blocks);
      case DType::fp32: return fused_twin<DType::fp32>(algo_, a, blocks);
    }
  }
};

VariantEntry host_entry(FusedAlgo algo) {
  VariantEntry e;
  e.name = fused_algo_name(algo);
  e.family = Family::allreduce_rmsnorm;
  e.summary = fused_summary(algo);
  e.host = [algo] { return make_fused_twin(algo); };
  return e;
}

}  // namespace

std::unique_ptr<Variant> make_fused_twin(FusedAlgo algo, FusedOptions opt) {
  return std::make_unique<FusedTwin>(algo, opt);
}

VariantEntry unfused_nccl_host_entry() {
  VariantEntry e;
  e.name = fused_algo_name(FusedAlgo::unfused_nccl);
  e.family = Family::allreduce_rmsnorm;
  e.summary = fused_summary(FusedAlgo::unfused_nccl);
  e.no_host_reason = kUnfusedNcclNoHost;
  return e;
}
VariantEntry unfused_oneshot_host_entry() { return host_entry(FusedAlgo::unfused_oneshot); }
VariantEntry fused_oneshot_host_entry() { return host_entry(FusedAlgo::fused_oneshot); }
VariantEntry fused_twoshot_host_entry() { return host_entry(FusedAlgo::fused_twoshot); }

}  // namespace arbench
