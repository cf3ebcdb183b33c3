// `arbench step`: what the all-reduces of one tensor-parallel decode (or speculative verify)
// step cost, projected from a measured result. Pure arithmetic on a ResultFile, host-tested.
//
//   tokens per step     T = batch × (draft + 1)
//   message             M = T × hidden × dtype size                  (bytes, one all-reduce)
//   all-reduces / step  A = 2 × layers   (attention out, MLP out; each with residual add + RMSNorm)
//   time per step       A × t(M), t = the variant's median latency at M, interpolated on a
//                       log-log scale between the two nearest measured sizes, never extrapolated
//   tokens/s ceiling    T / time per step (every draft token accepted, compute free)
//
// Which cases feed a variant (per world size and dtype): the fused family (allreduce_rmsnorm)
// at the model's hidden size — these include the residual add + RMSNorm; and the allreduce
// family for variants that have no fused-family form in the result (all-reduce only: the norm
// is not counted). An allreduce variant whose fused-family form is present is left out:
// `nccl` → `unfused-nccl`, `oneshot-pull` → `unfused-oneshot` / `fused-oneshot`, `twoshot` →
// `fused-twoshot`, `island-oneshot` → `fused-island-oneshot`, `island-twoshot` →
// `fused-island-twoshot`. Failed cases are ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/result_file.hpp"

namespace arbench {

struct StepModel {
  std::string name;  // preset name, or "custom"
  int hidden = 0, layers = 0;
};

struct StepOptions {
  std::vector<int> batch{1}, draft{0};
  std::vector<int> worlds;             // empty: every world size the result holds for the dtype
  std::string dtype = "bf16";
  std::vector<std::string> variants;   // name globs; empty: all
  std::string baseline;                // empty: the first present of kDefaultBaselines
  std::optional<double> step_ms;       // a measured engine step, for the communication share
};

// The yardstick savings are measured against, in order of preference: what an engine does
// without custom kernels (NCCL, then a separate norm kernel), then NCCL alone, then arbench's
// own unfused pair and its all-reduce (the stand-ins on a result without NCCL, e.g. the host).
inline const char* const kDefaultBaselines[] = {"unfused-nccl", "nccl", "unfused-oneshot", "oneshot-pull"};

// Measured (size, µs) points of one candidate, sizes ascending and distinct.
using LatencyPoints = std::vector<std::pair<double, double>>;

// Latency at `size`: the measured value at a measured size, else the straight line between the
// two neighbouring points in (log size, log µs); nullopt below the first or above the last
// point (no extrapolation) or when a neighbour is not positive.
std::optional<double> interpolate_log_log(const LatencyPoints& points, double size);

struct StepCandidate {
  std::string variant;   // "oneshot-push", or "oneshot-push/inplace" for in-place cases
  std::string family;    // "allreduce_rmsnorm" | "allreduce"
  bool includes_norm = false;
  bool in_place = false;
  LatencyPoints points;  // (message bytes, median µs)
};

// The candidates of `result` at one world size, dtype and hidden size (rules above), after the
// --variants globs. Names of failed cases land in *ignored.
std::vector<StepCandidate> step_candidates(const ResultFile& result, int world, const std::string& dtype, int hidden,
                                           const std::vector<std::string>& variant_globs,
                                           std::vector<std::string>* ignored = nullptr);

struct StepRow {
  int batch = 0, draft = 0, tokens = 0;
  std::uint64_t message_bytes = 0;
  std::string variant, family;
  bool includes_norm = false;
  bool interpolated = false;
  double us_per_allreduce = 0;
  double ms_per_step = 0;
  std::optional<double> saving_ms;        // baseline − this; absent without a baseline
  std::optional<double> saving_fraction;  // 1 − this / baseline
  double tokens_per_s_ceiling = 0;
  std::optional<double> comm_share;       // ms_per_step / step_ms
};

// Sizes a projection needed but the result does not cover, for one group of cases that one
// `arbench run` line measures; `run_line` measures every size the projection needs for those
// variants (the missing ones included), so its result alone feeds `arbench step`.
struct MissingSizes {
  std::string family;
  std::vector<int> worlds;
  int hidden = 0;
  bool in_place = false;
  std::vector<std::string> variants;
  std::vector<std::uint64_t> missing_bytes;
  std::vector<int> missing_tokens;  // allreduce_rmsnorm only
  std::string run_line;
};

struct StepTable {
  int world = 0;
  std::string baseline;       // empty: none found
  std::string baseline_note;  // what savings are measured against, and why
  std::vector<StepRow> rows;  // by batch, draft, then fastest first
  std::vector<std::string> notes;
};

struct StepReport {
  std::string source_path, backend, timing, revision, fingerprint;
  StepModel model;
  std::string dtype;
  int dtype_bytes = 0;
  int allreduces_per_step = 0;
  std::optional<double> step_ms;
  std::vector<StepTable> tables;        // one per world size
  std::vector<MissingSizes> missing;    // non-empty: the projection is refused (exit 2)
  std::vector<std::string> ignored;     // failed cases left out
};

// Throws UsageError (exit 2) for unusable input: bad model or options, an unknown dtype, no
// case at the asked world size, an unknown --baseline. Sizes out of the measured range do not
// throw: they are returned in `missing`.
StepReport project_step(const ResultFile& result, const StepModel& model, const StepOptions& opt);

}  // namespace arbench
