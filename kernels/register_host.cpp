// Registration of the host-fabric variants (host twins). One line per variant.
#include "arbench/variant.hpp"
#include "kernels/ce/ce_twin.hpp"
#include "kernels/fp8/fp8_twins.hpp"
#include "kernels/fused/fused_twins.hpp"
#include "kernels/island/island_twins.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "kernels/ring/ring_twin.hpp"
#include "kernels/symm/symm_twins.hpp"

namespace arbench {

void register_host_variants(Registry& r) {
  r.add(reference_entry());
  r.add(symm_host_entry(SymmAlgo::oneshot_pull));
  r.add(symm_host_entry(SymmAlgo::oneshot_push));
  r.add(symm_host_entry(SymmAlgo::twoshot));
  r.add(fp8_host_entry(Fp8Algo::oneshot));
  r.add(fp8_host_entry(Fp8Algo::twoshot));
  r.add(ring_host_entry());
  r.add(ce_host_entry(CeAlgo::twoshot));
  r.add(ce_host_entry(CeAlgo::ring));
  r.add(ce_host_entry(CeAlgo::island));
  r.add(island_host_entry(IslandAlgo::oneshot));
  r.add(island_host_entry(IslandAlgo::twoshot));
  r.add(fused_host_entry(FusedAlgo::unfused_nccl));  // unfused first: see fused_twins.hpp
  r.add(fused_host_entry(FusedAlgo::unfused_oneshot));
  r.add(fused_host_entry(FusedAlgo::fused_oneshot));
  r.add(fused_host_entry(FusedAlgo::fused_twoshot));
  r.add(island_host_entry(IslandAlgo::fused_oneshot));
  r.add(island_host_entry(IslandAlgo::fused_twoshot));
}

}  // namespace arbench
