// What the exact symm twins and the FP8 twins share (symm_twins.hpp, kernels/fp8/fp8_twins.hpp):
// a SymmVariant run on the host, sequentially or block-faithfully (kernels/twin_grid.hpp, the mode
// chosen by Tuning::host_threads within the kernel's launch Policy), its grid chosen by the
// kernel's policy with the host's cores as SMs. Twin supplies one block of its protocol
// (block<D>); the rest is here.
// make_twin_with<Mem>(algo) makes the twin of an algorithm with any host memory policy: HostMem in
// production, the mutant policies of the mutation score in tests.
#pragma once

#include <memory>

#include "arbench/algo/symm_layout.hpp"
#include "kernels/symm/symm_variant.hpp"
#include "kernels/twin_grid.hpp"

namespace arbench {

template <class Twin, class Base, class Policy>
class GridTwin : public Base {
 public:
  template <class Algo>
  GridTwin(Algo algo, SymmOptions opt, TwinOptions twin) : Base(algo, opt), grids_(twin) {}

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    grids_.choose(t.host_threads, Policy::threads_ok(t.host_threads), this->label());
    Base::prepare(c, f, b, t);
    grids_.prepare(f.world(), 0, f.timeout_s());
  }

  void launch(int rank, Stream /*stream*/) override {
    const algo::SymmArgs a = this->args_for(rank);
    with_dtype(this->dtype_, [&](auto d) {
      grids_.launch(rank, this->blocks(), [&](const algo::BlockCtx& c, void* /*shared*/) {
        return static_cast<const Twin&>(*this).template block<decltype(d)::value>(a, c);
      });
    });
  }

 protected:
  int threads() const override { return grids_.threads(); }
  // The SM count the kernel's launch policy gets (block-faithful: the host's cores).
  int host_sms() const { return grids_.sms(Policy::kHostSms); }
  // The kernel's policy, with the host's cores as SMs.
  int choose_blocks(const Fabric& /*f*/, const Tuning& t, std::size_t packs) const override {
    return this->grid_for(host_sms(), 1, t.blocks, packs);
  }

 private:
  TwinGrids grids_;
};

// The twin class of an algorithm enum (SymmAlgo: SymmTwin, Fp8Algo: Fp8Twin), with memory policy
// Mem: specialized beside each twin.
template <class Algo, class Mem>
struct TwinOf;

template <class Mem, class Algo>
std::unique_ptr<SymmVariant> make_twin_with(Algo algo, SymmOptions opt = {}, TwinOptions twin = {}) {
  return std::make_unique<typename TwinOf<Algo, Mem>::type>(algo, opt, twin);
}

}  // namespace arbench
