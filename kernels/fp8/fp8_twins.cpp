#include "kernels/fp8/fp8_twins.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {

std::unique_ptr<Variant> make_fp8_twin(Fp8Algo algo, SymmOptions opt, TwinOptions twin) {
  return make_twin_with<HostMem>(algo, opt, twin);
}

VariantEntry fp8_host_entry(Fp8Algo algo) {
  VariantEntry e = host_entry(text_of(kFp8Text, algo), [algo] { return make_fp8_twin(algo); });
  e.lossy = true;
  return e;
}

}  // namespace arbench
