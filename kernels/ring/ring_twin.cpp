#include "kernels/ring/ring_twin.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {

std::unique_ptr<RingVariant> make_ring_twin(RingOptions opt, TwinOptions twin) {
  return make_ring_twin_with<HostMem>(opt, twin);
}

VariantEntry ring_host_entry() {
  return host_entry(kRingText, [] { return make_ring_twin(); });
}

}  // namespace arbench
