// compare: match two results case by case (by name) and judge each with verdict.hpp's rule.
// Refuses results from different machines (different machine ids: hardware, results/machine_stack.hpp)
// unless told otherwise, because a cross-machine ratio measures the machines, not the change. Two
// results of one machine with different software stacks (driver, CUDA, NCCL) are compared: the
// stack change is what is judged, and the report is headed by it (stack_changes). It refuses
// two results with no case in common (a gate that matched nothing would pass silently).
//
// What fails the gate (exit 1): a `failed` case; a `slower` case, unless NEW's device state was
// abnormal for it (throttling, clock change, downtrained link, other processes: it is reported
// with the reason and not counted unless `strict`) or timings are not gated
// (`correctness_only`, for CPU timings); a case of BASE missing from NEW, unless
// `allow_missing`. When both files recorded the 95% CI of each median (arbench run), a material
// change whose intervals overlap is `noisy`: the change is within what the runs measured.
//
// Lossy (low-precision) variants: their error figures are compared too (accuracy.hpp); an error
// that rose beyond the threshold fails the gate like a slower case, under correctness_only and
// whatever the device state (the figure does not come from a clock).
//
// `% of SOL` (100 x the case's speed-of-light floor / its median, bench/sol/) is tracked like a
// time: each file's samples in units of its own floor (sample / floor) go through the same rule,
// so `slower` there means the case fell further from its floor. A fall counts like a slower case,
// with the same exceptions, and one more: when the two floors differ by more than the threshold
// (the box's measured rates changed, or the probe that measured them), the fall is reported beside
// the floors and counted only with `strict`.
//
// The run-level verdict (verdict.hpp's judge_run) judges the geometric mean of the matched
// cases' ratios with a bootstrap interval across cases; a run-level `slower` fails the gate like
// a case's, with the same exceptions: not under `correctness_only`, and cases whose device state
// was abnormal tonight are left out of it unless `strict`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/accuracy.hpp"
#include "results/machine_stack.hpp"
#include "results/result_file.hpp"
#include "analysis/verdict/verdict.hpp"
#include "results/result_file.hpp"

namespace arbench {

struct CompareOptions {
  VerdictOptions verdict;
  bool allow_different_machines = false;
  bool allow_missing = false;     // cases of BASE absent from NEW do not fail the gate
  bool strict = false;            // count `slower` even when NEW's device state was abnormal
  bool correctness_only = false;  // report timings, gate on failed (and missing) cases only
  double run_threshold = -1;      // bar of the run-level verdict; < 0: half of verdict.threshold
};

// The bar the run-level verdict uses: opt.run_threshold, or half the per-case threshold.
double run_threshold(const CompareOptions& opt);

struct RunLevel {
  RunVerdict result;       // the geometric mean, its interval and the verdict (judged or not)
  double threshold = 0;    // the bar used
  double confidence = 0;   // of the interval: 1 - alpha
  int left_out = 0;        // cases with a ratio left out: NEW's device state abnormal (!strict)
  bool counted = false;    // a run-level slower that fails the gate
  std::string not_counted; // a run-level slower that does not, and why
  std::string reason;      // why there is no run-level verdict (too few cases)
};

// A case's `% of SOL` in both files (both recorded a floor).
struct SolComparison {
  double base_sol_us = 0, new_sol_us = 0;
  double base_pct = 0, new_pct = 0;  // from the medians: 100 x floor / median
  SampleComparison result;           // of sample / floor: slower = % of SOL fell
  bool floor_moved = false;          // the floors differ (not the same measured rates): a fall is not counted
  bool counted = false;              // a fall that fails the gate
  std::string not_counted;           // a fall that does not, and why
  bool fell() const { return result.verdict == Verdict::slower; }
};

struct CaseComparison {
  std::string name;
  std::size_t base_samples = 0, new_samples = 0;
  SampleComparison result;
  std::string reason;  // why NEW failed, for Verdict::failed
  bool counted = false;               // fails the gate (a regression verdict that counts)
  std::string not_counted;            // a regression verdict that does not count, and why
  std::string device_marker;          // NEW's abnormal device state, empty when normal
  std::vector<std::string> device_differences;  // "GPU 3 link Gen5 x8 tonight, Gen5 x16 in the baseline"
  double base_noise = -1, new_noise = -1;       // recorded noise (CI width / median); < 0 = none
  bool within_noise = false;          // material, but the recorded CIs overlap: called noisy
  std::optional<AccuracyComparison> accuracy;  // a lossy variant's error figures (accuracy.hpp)
  bool error_rose() const { return accuracy && accuracy->rose; }
  std::optional<SolComparison> sol;  // both files recorded a floor
  std::optional<int> base_sms, new_sms;  // the SMs one op takes in each file (docs/output.md, "sms")
  bool sms_changed() const { return base_sms && new_sms && *base_sms != *new_sms; }
  bool sol_fell() const { return sol && sol->fell(); }
};

struct FieldDifference {
  std::string field, base_value, new_value;  // "(absent)" when one side lacks the field
};

struct CompareReport {
  std::string base_path, new_path;
  std::vector<CaseComparison> rows;  // worst first: by verdict severity, then ratio, largest first
  double geomean_ratio = 1;          // over rows with a ratio (not failed); 1 when none
  std::vector<std::string> only_in_base, only_in_new;
  std::vector<std::string> not_comparable;  // "name: failed in BASE (reason)"
  std::vector<std::string> notes;  // warnings: CPU timing, unverifiable or differing machines
  std::vector<FieldDifference> machine_differences;
  std::string base_machine, new_machine;   // machine ids (empty when unknown)
  std::vector<StackChange> stack_changes;  // same machine (or allowed), different stack
  bool base_migrated = false, new_migrated = false;  // written before the machine/stack split
  int regressions = 0;   // rows that fail the gate (counted): slower, failed, or their error rose
  int error_rises = 0;   // rows whose error figure rose beyond the threshold (also in regressions)
  int error_compared = 0;  // rows with an error figure in either file (lossy variants)
  int sol_compared = 0;    // rows with a floor in both files
  int sol_falls = 0;       // rows whose % of SOL fell (counted or not)
  int not_counted = 0;   // rows with a regression verdict that does not count (see not_counted, sol->not_counted)
  int missing = 0;       // cases of BASE absent from NEW that fail the gate (!allow_missing)
  RunLevel run;          // the whole run: did every case move together?
  CompareOptions options;
};

// 1 when the gate fails (a counted regression, missing cases, or a counted run-level slower),
// else 0.
int compare_exit_code(const CompareReport& rep);

// Machine fields that differ between the two files (both machine ids known and unequal).
std::vector<FieldDifference> fingerprint_differences(const ResultFile& base,
                                                     const ResultFile& next);

// Throws UsageError when the machine ids differ and !opt.allow_different_machines, and when
// no case of NEW matches a case of BASE.
CompareReport compare_results(const ResultFile& base, const ResultFile& next,
                              const CompareOptions& opt);

}  // namespace arbench
