// Host twins of oneshot-fp8 and twoshot-fp8: the protocols of include/arbench/algo/fp8/ run
// sequentially or block-faithfully, on the exact symm twins' grid (kernels/symm/grid_twin.hpp).
// Fp8Twin<Mem> takes any host memory policy: HostMem in production (make_fp8_twin), the mutant
// policies of the mutation score in tests (make_twin_with, kernels/symm/grid_twin.hpp).
#pragma once

#include <memory>

#include "arbench/algo/fp8/fp8_protocols.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "kernels/fp8/fp8_variant.hpp"
#include "kernels/symm/grid_twin.hpp"

namespace arbench {

template <class Mem>
class Fp8Twin final : public GridTwin<Fp8Twin<Mem>, Fp8Variant, algo::Fp8LaunchPolicy> {
 public:
  using GridTwin<Fp8Twin<Mem>, Fp8Variant, algo::Fp8LaunchPolicy>::GridTwin;

  template <DType D>
  bool block(const algo::SymmArgs& a, const algo::BlockCtx& c) const {
    return this->fp8_ == Fp8Algo::oneshot ? algo::oneshot_fp8_block<Mem, D>(a, c) : algo::twoshot_fp8_block<Mem, D>(a, c);
  }
};

template <class Mem>
struct TwinOf<Fp8Algo, Mem> {
  using type = Fp8Twin<Mem>;
};

// The twin with HostMem.
std::unique_ptr<Variant> make_fp8_twin(Fp8Algo algo, SymmOptions opt = {}, TwinOptions twin = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry fp8_host_entry(Fp8Algo algo);

}  // namespace arbench
