// Options that apply to part of a sweep only (--tokens to the fused family, --ring-chunk to the
// ring, --links to the cuda backend, ...): one typed for a sweep it cannot affect is refused with
// the reason (exit 2) instead of being silently ignored, and the result's `arbench.config` keeps
// only the fields the sweep used.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sweep/sweep.hpp"

namespace arbench {

// What the expanded sweep (before --benchmark_filter, cases that run and skipped ones) holds.
struct SweepScope {
  bool allreduce = false;  // a case of the allreduce family
  bool fused = false;      // a case of the allreduce_rmsnorm family
  bool ring = false;       // a variant of the native ring (its name starts with "ring")
  bool blocks = false;     // a custom kernel that takes --blocks (not reference, ring or NCCL)
  bool ll128 = false;      // an nccl[*/ll128] configuration
  bool symm = false;       // a custom kernel whose symmetric memory a provider maps (not NCCL's variants)
  bool islands = false;    // an island variant (island-*, fused-island-*)
  bool nccl_libs = false;  // a variant of a library given with --nccl-lib (`nccl@<label>`, `nccl-symm@<label>`)
  bool pcie_ipc = false;   // the peer flashinfer-pcie-ipc, whose workspace --peer-workspace sizes
};
SweepScope sweep_scope(const Sweep& sweep);

// Throws UsageError for the first option in `cfg.given` (the long names typed, e.g. "--tokens")
// that cannot affect this sweep on backend `b`: the option, why, and what to do.
void check_options_apply(const RunConfig& cfg, Backend b, const SweepScope& scope);

// Removes from `config` (config_to_json) the fields that did not shape this sweep: the fused
// family's (tokens, hidden, model, eps) without fused cases, the ring's without a ring, blocks
// without a kernel that takes them, the link options off the cuda backend, --symm-mem off the cuda
// backend or without a custom kernel.
void drop_unused_config(nlohmann::json& config, Backend b, const SweepScope& scope);

}  // namespace arbench
