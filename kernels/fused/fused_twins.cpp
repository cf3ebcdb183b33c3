#include "kernels/fused/fused_twins.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {
namespace {

VariantEntry host_entry(FusedAlgo algo) {
  VariantEntry e;
  e.name = fused_algo_name(algo);
  e.family = Family::allreduce_rmsnorm;
  e.summary = fused_summary(algo);
  e.host = [algo] { return make_fused_twin(algo); };
  return e;
}

}  // namespace

std::unique_ptr<Variant> make_fused_twin(FusedAlgo algo, FusedOptions opt, TwinOptions twin) {
  return make_fused_twin_with<HostMem>(algo, opt, twin);
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
