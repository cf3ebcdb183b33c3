// The variants that have both halves, a host twin and a GPU kernel, listed once in `arbench list`
// order: register_host.cpp adds them with the twins' entry functions, register_cuda.cu with the
// kernels', so a variant cannot be listed on one side and forgotten on the other. The registry
// keeps the order of the first half added (Registry::builtin, in register_cuda.cu, adds the host half first).
#pragma once

#include "arbench/variant.hpp"
#include "kernels/ce/ce_entry.hpp"
#include "kernels/fp8/fp8_variant.hpp"
#include "kernels/fused/fused_variant.hpp"
#include "kernels/island/island_variant.hpp"
#include "kernels/symm/symm_variant.hpp"

namespace arbench {

// One side's registry entry of each family's algorithms (ring has a single variant).
struct FamilyEntries {
  VariantEntry (*symm)(SymmAlgo);
  VariantEntry (*fp8)(Fp8Algo);
  VariantEntry (*ring)();
  VariantEntry (*ce)(CeAlgo);
  VariantEntry (*island)(IslandAlgo);
  VariantEntry (*fused)(FusedAlgo);
};

inline void add_twinned_variants(Registry& r, const FamilyEntries& e) {
  for (SymmAlgo a : {SymmAlgo::oneshot_pull, SymmAlgo::oneshot_push, SymmAlgo::twoshot}) r.add(e.symm(a));
  for (Fp8Algo a : {Fp8Algo::oneshot, Fp8Algo::twoshot}) r.add(e.fp8(a));
  r.add(e.ring());
  for (CeAlgo a : {CeAlgo::twoshot, CeAlgo::ring, CeAlgo::island}) r.add(e.ce(a));
  for (IslandAlgo a : {IslandAlgo::oneshot, IslandAlgo::twoshot}) r.add(e.island(a));
  // The unfused baselines first, so that they run (and feed the fusion counters) before the
  // fused forms of a shape (fused_twins.hpp).
  for (FusedAlgo a : {FusedAlgo::unfused_nccl, FusedAlgo::unfused_oneshot, FusedAlgo::fused_oneshot,
                      FusedAlgo::fused_twoshot})
    r.add(e.fused(a));
  for (IslandAlgo a : {IslandAlgo::fused_oneshot, IslandAlgo::fused_twoshot}) r.add(e.island(a));
}

}  // namespace arbench
