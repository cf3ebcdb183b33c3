#include "kernels/island/island_twins.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {

std::unique_ptr<IslandVariant> make_island_twin(IslandAlgo algo, IslandOptions opt, TwinOptions twin) {
  return make_island_twin_with<HostMem>(algo, opt, twin);
}

VariantEntry island_host_entry(IslandAlgo algo) {
  return host_entry(text_of(kIslandText, algo), [algo] { return make_island_twin(algo); });
}

}  // namespace arbench
