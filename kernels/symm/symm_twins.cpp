#include "kernels/symm/symm_twins.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {

std::unique_ptr<Variant> make_symm_twin(SymmAlgo algo, SymmOptions opt, TwinOptions twin) {
  return make_symm_twin_with<HostMem>(algo, opt, twin);
}

VariantEntry oneshot_pull_host_entry() {
  VariantEntry e;
  e.name = "oneshot-pull";
  e.family = Family::allreduce;
  e.summary = "barrier, every rank reads all peers' data and reduces it (one flag round trip)";
  e.host = [] { return make_symm_twin(SymmAlgo::oneshot_pull); };
  return e;
}

VariantEntry oneshot_push_host_entry() {
  VariantEntry e;
  e.name = "oneshot-push";
  e.family = Family::allreduce;
  e.summary = "every rank writes its data into each peer's scratch with in-band LL flags; no barrier";
  e.host = [] { return make_symm_twin(SymmAlgo::oneshot_push); };
  return e;
}

VariantEntry twoshot_host_entry() {
  VariantEntry e;
  e.name = "twoshot";
  e.family = Family::allreduce;
  e.summary = "reduce-scatter (each rank owns 1/N) then all-gather, on symmetric memory";
  e.host = [] { return make_symm_twin(SymmAlgo::twoshot); };
  return e;
}

}  // namespace arbench
