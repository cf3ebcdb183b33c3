// Host twins of oneshot-fp8 and twoshot-fp8: the protocols of include/arbench/algo/fp8/ run
// sequentially or block-faithfully (kernels/twin_grid.hpp), like the exact symm twins.
// Fp8Twin<Mem> takes any host memory policy: HostMem in production (make_fp8_twin), the mutant
// policies of the mutation score in tests (make_fp8_twin_with).
#pragma once

#include <memory>

#include "arbench/algo/fp8/fp8_protocols.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/fp8/fp8_variant.hpp"
#include "kernels/twin_grid.hpp"

namespace arbench {

template <class Mem>
class Fp8Twin final : public Fp8Variant {
 public:
  Fp8Twin(Fp8Algo algo, SymmOptions opt, TwinOptions twin) : Fp8Variant(algo, opt), grids_(twin) {}

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    grids_.choose(t.host_threads, algo::Fp8LaunchPolicy::threads_ok(t.host_threads), label());
    Fp8Variant::prepare(c, f, b, t);
    grids_.prepare(f.world(), 0, f.timeout_s());
  }

  void launch(int rank, Stream /*stream*/) override {
    const algo::SymmArgs a = args_for(rank);
    with_dtype(dtype_, [&](auto d) { run<decltype(d)::value>(rank, a); });
  }

 protected:
  int choose_blocks(const Fabric& /*f*/, const Tuning& t, std::size_t packs) const override {
    return grid_for(grids_.sms(algo::Fp8LaunchPolicy::kHostSms), 1, t.blocks, packs);
  }
  int threads() const override { return grids_.threads(); }

 private:
  template <DType D>
  void run(int rank, const algo::SymmArgs& a) {
    grids_.launch(rank, blocks(), [&](const algo::BlockCtx& c, void* /*shared*/) {
      return fp8_ == Fp8Algo::oneshot ? algo::oneshot_fp8_block<Mem, D>(a, c) : algo::twoshot_fp8_block<Mem, D>(a, c);
    });
  }

  TwinGrids grids_;
};

template <class Mem>
std::unique_ptr<SymmVariant> make_fp8_twin_with(Fp8Algo algo, SymmOptions opt = {}, TwinOptions twin = {}) {
  return std::make_unique<Fp8Twin<Mem>>(algo, opt, twin);
}

// The twin with HostMem.
std::unique_ptr<Variant> make_fp8_twin(Fp8Algo algo, SymmOptions opt = {}, TwinOptions twin = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry fp8_host_entry(Fp8Algo algo);

}  // namespace arbench
