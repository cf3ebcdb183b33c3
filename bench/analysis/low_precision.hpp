// Where the low-precision (lossy, e.g. FP8-on-the-wire) all-reduce variants pay, and what they
// cost in accuracy: per world size and lossy variant, the smallest measured size from which it
// beats every exact variant at that size and every larger one, and its error figures over those
// sizes. What `arbench settings` needs for TensorRT-LLM's LOWPRECISION line (the size from which
// it wins, its error) and for a finding that names the error; the tables are the caller's to word.
//
// The rule, per world size, over the sizes where the lossy variant and at least one exact
// variant were measured:
//   wins at S     its median is below the fastest exact variant's at S, and the Mann-Whitney
//                 p of the two cases' samples is below alpha (a real difference, not noise)
//   wins_from     the smallest S such that it wins at S and at every larger compared size
//                 (nullopt: it does not win at the largest; a win below a loss is no crossover)
//   error         the worst max_abs_err and rms_rel_err over the sizes from wins_from up (over
//                 every compared size when it never wins)
// A lossy case without error figures (a run with --no-check) is no candidate: its size is left
// out and counted in `note` — a low-precision variant is only offered with its error shown.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/result_file.hpp"

namespace arbench {

// world -> bytes -> variant -> case: the same type as settings' Measured::Grid, so its
// `allreduce` grid is passed as it is.
using CaseGrid = std::map<int, std::map<std::uint64_t, std::map<std::string, const ResultCase*>>>;

struct LowPrecisionOptions {
  double alpha = 0.01;
  // Whether a variant is lossy (the registry's Variant::lossy()); unset: a variant is lossy when
  // one of its cases records an error figure (only lossy variants' cases do).
  std::function<bool(const std::string& variant)> lossy;
};

struct LowPrecisionWin {
  std::string variant;  // the lossy variant, e.g. "twoshot-fp8"
  int world = 0;
  std::optional<std::uint64_t> wins_from;  // bytes; nullopt: no crossover (see the rule above)
  std::uint64_t at = 0;       // the size the comparison below is quoted at: wins_from, else the largest compared
  std::string exact_best;     // the fastest exact variant there
  double speedup = 0;         // exact_best's median / this variant's median there (> 1: faster)
  double p_value = 1;         // Mann-Whitney, the two cases there
  std::optional<double> max_abs_err, rms_rel_err;  // worst over the sizes from wins_from up (or all)
  std::size_t sizes = 0;      // sizes compared (both measured, the error recorded)
  std::uint64_t largest = 0;  // the largest size compared
  std::string note;           // sizes left out and why; empty when none
};

// The usable allreduce cases of `result` as settings reads them: successful, of `dtype`, out of
// place, hot cache, no arrival skew.
CaseGrid allreduce_grid(const ResultFile& result, const std::string& dtype);

// One entry per (world, lossy variant) in the grid, by world then variant; empty when the grid
// holds no lossy variant (settings then keeps LOWPRECISION `missing` with its run line).
std::vector<LowPrecisionWin> low_precision_wins(const CaseGrid& allreduce, const LowPrecisionOptions& opt = {});

// One line for people, e.g. "twoshot-fp8 at 8 GPUs: faster than every exact variant from 2 MiB up
// (1.71x twoshot at 2 MiB, p 0.0001); error there: max abs 0.0625, rms rel 0.912%".
std::string low_precision_summary(const LowPrecisionWin& w);

}  // namespace arbench
