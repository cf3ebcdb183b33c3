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
// Rows are ranked in two groups that are never mixed: first the rows that include the residual
// add + RMSNorm (the fused family: what one decoder all-reduce costs as an engine runs it), then
// the all-reduces alone (the norm each still needs is not counted), each fastest first; so the top
// row is a complete choice. On a GPU result a variant that cannot run on GPUs (`reference`, the
// host yardstick) is no choice and is left out. Per (batch, draft), the engines' default on this
// box (`unfused-nccl`: NCCL, then a separate norm kernel) is set beside the fastest complete choice,
// with the tokens/s ceiling of each.
//
// Which cases feed a variant (per world size and dtype): the fused family (allreduce_rmsnorm)
// at the model's hidden size — these include the residual add + RMSNorm; and the allreduce
// family for variants that have no fused-family form in the result (all-reduce only: the norm
// is not counted). An allreduce variant whose fused-family form is present is left out:
// `nccl` → `unfused-nccl`, `oneshot-pull` → `unfused-oneshot` / `fused-oneshot`, `twoshot` →
// `fused-twoshot`, `island-oneshot` → `fused-island-oneshot`, `island-twoshot` →
// `fused-island-twoshot`. Failed cases are ignored.
//
// Low-precision (lossy, FP8-on-the-wire) variants are choices only with their error shown: each
// of their rows carries the error figures of the measured sizes it was projected from (the worst
// of the two neighbours when interpolated), and a lossy case without them (a run with --no-check)
// is left out, with why.
#pragma once

#include <cstdint>
#include <functional>
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
  // Why a variant is no choice on GPUs (empty when it is one); applied to GPU results only.
  std::function<std::string(const std::string& variant)> not_on_gpus;
  // Whether a variant is lossy (the registry's Variant::lossy()); unset, or false for a variant:
  // lossy when one of its cases records an error figure (only lossy variants' cases do).
  std::function<bool(const std::string& variant)> lossy;
};

// The engine default an engine runs without arbench's settings on SM120 over PCIe beyond two GPUs.
inline constexpr const char* kEngineDefault = "unfused-nccl";

// One (batch, draft): the engines' default beside the fastest complete choice (with the norm).
struct StepChoice {
  int batch = 0, draft = 0;
  std::string default_variant, best_variant;
  double default_tps = 0, best_tps = 0;  // tokens/s ceilings
  std::string how;                       // what an engine sets to run best_variant
  std::optional<double> best_rms_rel_err;  // best_variant is lossy: its error (StepRow)
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
  bool lossy = false;    // a low-precision variant: its error figures below, per measured size
  LatencyPoints max_abs_err, rms_rel_err;  // (message bytes, error); empty for exact variants
};

// A lossy candidate's error figure at `size`: the figure at a measured size, else the worse of
// the two neighbouring measured sizes; nullopt outside them or when a neighbour lacks it.
std::optional<double> error_at(const LatencyPoints& errors, double size);

// The candidates of `result` at one world size, dtype and hidden size (rules above), after the
// --variants globs. Names of failed cases land in *ignored.
std::vector<StepCandidate> step_candidates(const ResultFile& result, int world, const std::string& dtype, int hidden,
                                           const std::vector<std::string>& variant_globs,
                                           std::vector<std::string>* ignored = nullptr,
                                           const std::function<std::string(const std::string&)>& not_on_gpus = {},
                                           const std::function<bool(const std::string&)>& lossy = {});

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
  bool lossy = false;                     // a low-precision variant: its error beside its time
  std::optional<double> max_abs_err, rms_rel_err;  // error_at the message size (lossy rows)
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
  std::vector<StepRow> rows;  // by batch, draft, then the rows with norm fastest first, then those without
  std::vector<StepChoice> choices;  // per (batch, draft), when both a default and a complete choice exist
  std::vector<std::string> notes;
};

// What an engine sets to run `variant` (a fused-family variant); "" for the default.
std::string engine_setting_of(const std::string& variant);

struct StepReport : ResultSource {
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
