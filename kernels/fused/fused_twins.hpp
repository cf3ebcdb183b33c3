// Host twins of unfused-oneshot, fused-oneshot and fused-twoshot: the protocols and the norm math
// of include/arbench/algo/ run sequentially or block-faithfully (kernels/twin_grid.hpp, chosen by
// Tuning::host_threads). unfused-nccl has no twin (NCCL needs GPUs). FusedTwin<Mem> works with
// any host memory policy: HostMem in production (make_fused_twin), the mutant policies of the
// mutation score in tests (make_fused_twin_with).
#pragma once

#include <memory>

#include "arbench/algo/fused/fused_twoshot.hpp"
#include "arbench/algo/fused/norm_rows.hpp"
#include "arbench/variant.hpp"
#include "kernels/fused/fused_variant.hpp"
#include "kernels/symm/symm_twins.hpp"
#include "kernels/twin_grid.hpp"

namespace arbench {

template <class Mem>
class FusedTwin final : public FusedVariant {
 public:
  FusedTwin(FusedAlgo algo, FusedOptions opt, TwinOptions twin) : FusedVariant(algo, opt), twin_(twin), grids_(twin) {}

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    grids_.choose(t.host_threads, algo::FusedLaunchPolicy::threads_ok(t.host_threads), fused_algo_name(algo_));
    grids_.prepare(f.world(), algo::kNormLanes * sizeof(float), f.timeout_s());
    FusedVariant::prepare(c, f, b, t);  // unfused: times the halves, so the grids come first
  }

 protected:
  std::unique_ptr<Variant> make_allreduce() const override {
    SymmOptions o;
    o.start_epoch = opt_.start_epoch;
    return make_twin_with<Mem>(SymmAlgo::oneshot_pull, o, twin_);
  }
  // Sequential: a stand-in SM count that keeps multi-block paths tested. Block-faithful: the
  // kernel's policy with the host's cores as SMs.
  int device_sm_count(const Fabric&) const override { return grids_.sms(algo::SymmLaunchPolicy::kHostSms); }
  int ranks_per_device(const Fabric&) const override { return 1; }
  int norm_blocks(int tokens) const override {
    return algo::FusedLaunchPolicy::norm_blocks(tokens, grids_.sms(algo::SymmLaunchPolicy::kHostSms));
  }
  int threads() const override { return grids_.threads(); }

  void run_norm(int rank, const algo::NormArgs& a, int blocks, Stream) override {
    with_dtype(dtype_, [&](auto d) { norm<decltype(d)::value>(rank, a, blocks); });
  }
  void run_fused(const algo::FusedArgs& a, int blocks, Stream) override {
    with_dtype(dtype_, [&](auto d) { fused<decltype(d)::value>(a, blocks); });
  }

 private:
  // `shared` is the block's kNormLanes floats (the kernel's __shared__ lanes).
  template <DType D>
  void norm(int rank, const algo::NormArgs& a, int blocks) {
    grids_.launch(rank, blocks, [&](const algo::BlockCtx& c, void* shared) {
      algo::norm_rows_block<Mem, D>(a, c, static_cast<float*>(shared));
      return true;
    });
  }
  template <DType D>
  void fused(const algo::FusedArgs& a, int blocks) {
    grids_.launch(a.s.rank, blocks, [&](const algo::BlockCtx& c, void* shared) {
      auto* lanes = static_cast<float*>(shared);
      return algo_ == FusedAlgo::fused_twoshot ? algo::fused_twoshot_block<Mem, D>(a, c, lanes)
                                               : algo::fused_oneshot_block<Mem, D>(a, c, lanes);
    });
  }

  TwinOptions twin_;  // for the unfused variants' all-reduce twin
  TwinGrids grids_;
};

template <class Mem>
std::unique_ptr<Variant> make_fused_twin_with(FusedAlgo algo, FusedOptions opt = {}, TwinOptions twin = {}) {
  return std::make_unique<FusedTwin<Mem>>(algo, opt, twin);
}

// The twin with HostMem.
std::unique_ptr<Variant> make_fused_twin(FusedAlgo algo, FusedOptions opt = {}, TwinOptions twin = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one). unfused-nccl's
// carries only the reason why it has no twin; twinned_variants.hpp lists the unfused entries first
// so the unfused baselines of a shape run (and feed the fusion counters) before the fused ones.
VariantEntry fused_host_entry(FusedAlgo algo);

}  // namespace arbench
