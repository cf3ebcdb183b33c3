#include "kernels/ring/ring_twin.hpp"

#include "kernels/mem_host.hpp"

namespace arbench {

std::unique_ptr<RingVariant> make_ring_twin(RingOptions opt, TwinOptions twin) {
  return make_ring_twin_with<HostMem>(opt, twin);
}

VariantEntry ring_host_entry() {
  VariantEntry e;
  e.name = "ring";
  e.family = Family::allreduce;
  e.summary = "native ring: reduce-scatter + all-gather over 2(N-1) pipelined steps, pushed to the next rank";
  e.host = [] { return make_ring_twin(); };
  return e;
}

}  // namespace arbench
