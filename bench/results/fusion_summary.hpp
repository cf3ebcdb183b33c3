// Fusion accounting of the allreduce_rmsnorm family, from the results of one run.
//
// Per shape (dtype, world, tokens, hidden), one baseline for both figures:
//   best unfused         min(t(unfused-nccl), t(unfused-oneshot)), median isolated latencies of
//                        the all-reduce + norm kernel pairs
//   speedup_vs_unfused   best unfused / t(fused)     (> 1: fusion wins)
//   fusion_saved_us      best unfused - t(fused)     (> 0 exactly when the speedup is > 1)
// Every fused case (fused-oneshot, fused-twoshot, fused-island-*) carries the two as counters
// (JSON and CSV); the unfused cases carry the times of
// their halves measured alone (`allreduce_only_us`, `norm_only_us`: where the time goes);
// fusion_summary_table() prints one line per shape at the end.
#pragma once

#include <string>
#include <vector>

#include "results/results.hpp"

namespace arbench {

inline constexpr const char* kSpeedupCounter = "speedup_vs_unfused";
inline constexpr const char* kSavedCounter = "fusion_saved_us";

struct FusionRow {
  DType dtype = DType::bf16;
  int world = 0, tokens = 0, hidden = 0;
  // The conditions a case ran under: only cases of the same ones are compared (a skewed or
  // cold-cache case is no stand-in for a plain one).
  double skew_us = 0;
  bool cold_cache = false;
  // Microseconds; NaN when the run has no such (successful) case.
  double unfused_nccl_us, unfused_oneshot_us, fused_oneshot_us, fused_twoshot_us;
  FusionRow();
  double best_unfused_us() const;                 // NaN when neither unfused variant ran
  double speedup(double fused_us) const;          // best_unfused / fused
  double saved_us(double fused_us) const;         // best_unfused - fused
};

// One row per shape that has at least one successful fused-family case, in first-seen order.
std::vector<FusionRow> fusion_rows(const std::vector<CaseResult>& results);

// Sets r.extra from r and `others` (the run's results so far, or all of them): component times
// on unfused cases, speedup and saved time on fused ones (only where the inputs exist).
void add_fusion_counters(CaseResult& r, const std::vector<CaseResult>& others);
// The same for every result, once the run is over (so the JSON is complete whatever the order).
void add_fusion_counters(std::vector<CaseResult>& results);

// The end-of-run table; empty when the run has no fused-family results.
std::string fusion_summary_table(const std::vector<CaseResult>& results);

}  // namespace arbench
