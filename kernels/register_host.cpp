// Registration of the host-fabric variants (host twins). One line per variant.
#include "arbench/variant.hpp"
#include "kernels/fused/fused_twins.hpp"
#include "kernels/island/island_twins.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "kernels/ring/ring_twin.hpp"
#include "kernels/symm/symm_twins.hpp"

namespace arbench {

void register_host_variants(Registry& r) {
  r.add(reference_entry());
  r.add(oneshot_pull_host_entry());
  r.add(oneshot_push_host_entry());
  r.add(twoshot_host_entry());
  r.add(ring_host_entry());
  r.add(island_oneshot_host_entry());
  r.add(island_twoshot_host_entry());
  r.add(unfused_nccl_host_entry());  // unfused first: see fused_twins.hpp
  r.add(unfused_oneshot_host_entry());
  r.add(fused_oneshot_host_entry());
  r.add(fused_twoshot_host_entry());
  r.add(fused_island_oneshot_host_entry());
  r.add(fused_island_twoshot_host_entry());
}

}  // namespace arbench
