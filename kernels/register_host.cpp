// Registration of the host-fabric variants (host twins). One line per variant.
#include "arbench/variant.hpp"
#include "kernels/reference_twin.hpp"

namespace arbench {

void register_host_variants(Registry& r) {
  r.add(reference_entry());
}

}  // namespace arbench
