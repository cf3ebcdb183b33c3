#include "kernels/fused/fused_twins.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {

std::unique_ptr<Variant> make_fused_twin(FusedAlgo algo, FusedOptions opt, TwinOptions twin) {
  return make_fused_twin_with<HostMem>(algo, opt, twin);
}

VariantEntry fused_host_entry(FusedAlgo algo) {
  if (algo == FusedAlgo::unfused_nccl) {
    VariantEntry e = entry_of(text_of(kFusedText, algo));
    e.no_host_reason = kUnfusedNcclNoHost;
    return e;
  }
  return host_entry(text_of(kFusedText, algo), [algo] { return make_fused_twin(algo); });
}

}  // namespace arbench
