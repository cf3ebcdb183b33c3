// Registration of the host-fabric variants (host twins): the reference, then the variants that
// also have a GPU kernel (twinned_variants.hpp).
#include "arbench/variant.hpp"
#include "kernels/ce/ce_twin.hpp"
#include "kernels/fp8/fp8_twins.hpp"
#include "kernels/fused/fused_twins.hpp"
#include "kernels/island/island_twins.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "kernels/ring/ring_twin.hpp"
#include "kernels/symm/symm_twins.hpp"
#include "kernels/twinned_variants.hpp"

namespace arbench {

void register_host_variants(Registry& r) {
  r.add(reference_entry());
  add_twinned_variants(r, {&symm_host_entry, &fp8_host_entry, &ring_host_entry, &ce_host_entry, &island_host_entry,
                           &fused_host_entry});
}

}  // namespace arbench
