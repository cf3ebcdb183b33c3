#include "kernels/island/island_twins.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {
namespace {

VariantEntry host_entry(IslandAlgo algo) {
  VariantEntry e;
  e.name = island_algo_name(algo);
  e.family = is_fused(algo) ? Family::allreduce_rmsnorm : Family::allreduce;
  e.summary = island_summary(algo);
  e.host = [algo] { return make_island_twin(algo); };
  return e;
}

}  // namespace

std::unique_ptr<IslandVariant> make_island_twin(IslandAlgo algo, IslandOptions opt, TwinOptions twin) {
  return make_island_twin_with<HostMem>(algo, opt, twin);
}

VariantEntry island_oneshot_host_entry() { return host_entry(IslandAlgo::oneshot); }
VariantEntry island_twoshot_host_entry() { return host_entry(IslandAlgo::twoshot); }
VariantEntry fused_island_oneshot_host_entry() { return host_entry(IslandAlgo::fused_oneshot); }
VariantEntry fused_island_twoshot_host_entry() { return host_entry(IslandAlgo::fused_twoshot); }

}  // namespace arbench
