#include "kernels/symm/symm_twins.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {

std::unique_ptr<Variant> make_symm_twin(SymmAlgo algo, SymmOptions opt, TwinOptions twin) {
  return make_twin_with<HostMem>(algo, opt, twin);
}

VariantEntry symm_host_entry(SymmAlgo algo) {
  return host_entry(text_of(kSymmText, algo), [algo] { return make_symm_twin(algo); });
}

}  // namespace arbench
