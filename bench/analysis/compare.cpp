// compare: case matching, machine check, ordering and the geometric mean; see compare.hpp.
#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

// The recorded intervals overlap: the change is within what the two runs could measure.
bool intervals_overlap(const MedianInterval& a, const MedianInterval& b) {
  return a.known && b.known && a.lower <= b.upper && b.lower <= a.upper;
}

std::string sample_names(const std::vector<ResultCase>& cases) {
  std::string s;
  for (std::size_t i = 0; i < cases.size() && i < 2; ++i) s += (i ? ", " : "") + cases[i].name;
  return s.empty() ? std::string("none") : s + (cases.size() > 2 ? ", ..." : "");
}

// `% of SOL` like a time: the samples in units of each file's own floor, judged by the same rule.
std::optional<SolComparison> judge_sol(const ResultCase& b, const ResultCase& n, const CaseComparison& row,
                                       const CompareOptions& opt) {
  if (!b.sol_us || !n.sol_us || !(*b.sol_us > 0) || !(*n.sol_us > 0)) return std::nullopt;
  SolComparison s;
  s.base_sol_us = *b.sol_us;
  s.new_sol_us = *n.sol_us;
  s.base_pct = b.pct_of_sol().value_or(0);
  s.new_pct = n.pct_of_sol().value_or(0);
  std::vector<double> bs, ns;
  for (double x : b.samples_us) bs.push_back(x / s.base_sol_us);
  for (double x : n.samples_us) ns.push_back(x / s.new_sol_us);
  s.result = compare_samples(bs, ns, opt.verdict);
  // Only a fall from the same floor counts. On the same floor the fall is the time's own verdict;
  // on floors that differ by less than the threshold (a probe at each run's start measures the
  // rates anew), sample / floor mixes the probe's noise into the times, and a time within its
  // threshold could fail the gate on it.
  s.floor_moved = std::abs(s.new_sol_us / s.base_sol_us - 1) > 1e-9;
  const bool material = s.result.verdict == Verdict::slower || s.result.verdict == Verdict::faster;
  if (material && b.median_ci && n.median_ci) {  // the recorded intervals, in floors
    MedianInterval bi = *b.median_ci, ni = *n.median_ci;
    bi.lower /= s.base_sol_us, bi.upper /= s.base_sol_us, ni.lower /= s.new_sol_us, ni.upper /= s.new_sol_us;
    if (intervals_overlap(bi, ni)) s.result.verdict = Verdict::noisy;
  }
  if (!s.fell()) return s;
  if (opt.correctness_only) s.not_counted = "timings not gated (correctness only)";
  else if (!row.device_marker.empty() && !opt.strict)
    s.not_counted = "device state abnormal tonight (--strict counts it)";
  else if (s.floor_moved && !opt.strict)
    s.not_counted = "the floor moved: the two runs measured the box's rates apart (--strict counts it)";
  s.counted = s.not_counted.empty();
  return s;
}

// Judges one case both files measured.
CaseComparison judge(const ResultCase& b, const ResultCase& n, const CompareOptions& opt) {
  CaseComparison row;
  row.name = b.name;
  row.base_samples = b.samples_us.size();
  row.new_samples = n.samples_us.size();
  if (b.median_ci) row.base_noise = b.median_ci->noise;
  if (n.median_ci) row.new_noise = n.median_ci->noise;
  if (n.device && n.device->abnormal()) row.device_marker = device_marker(*n.device);
  if (b.device && n.device) row.device_differences = device_state_differences(*b.device, *n.device);
  if (!n.ok || n.samples_us.empty()) {
    row.result.base_median = median_of(b.samples_us);
    row.result.ratio = std::nan("");
    row.result.verdict = Verdict::failed;
    row.reason = n.reason.empty() ? "no samples" : n.reason;
    row.counted = true;  // correctness is always gated
    return row;
  }
  row.result = compare_samples(b.samples_us, n.samples_us, opt.verdict);
  row.accuracy = compare_accuracy(b, n, opt.verdict.threshold);
  row.base_sms = b.sms;
  row.new_sms = n.sms;
  const bool material = row.result.verdict == Verdict::slower || row.result.verdict == Verdict::faster;
  if (material && b.median_ci && n.median_ci && intervals_overlap(*b.median_ci, *n.median_ci)) {
    row.result.verdict = Verdict::noisy;
    row.within_noise = true;
  }
  if (row.result.verdict == Verdict::slower) {
    if (opt.correctness_only)
      row.not_counted = "timings not gated (correctness only)";
    else if (!row.device_marker.empty() && !opt.strict)
      row.not_counted = "device state abnormal tonight: " + row.device_marker + " (--strict counts it)";
    row.counted = row.not_counted.empty();
  }
  if (row.error_rose()) row.counted = true;  // gated always: no clock moves an error figure
  row.sol = judge_sol(b, n, row, opt);
  if (row.sol && row.sol->counted) row.counted = true;
  return row;
}

// Whether a row has a ratio to average: measured on both sides (not failed), finite and > 0.
bool has_ratio(const CaseComparison& r) {
  return r.result.verdict != Verdict::failed && r.result.ratio > 0 && std::isfinite(r.result.ratio);
}

// The whole run: the ratios of the cases the gate could count (not failed; NEW's device state
// normal, unless strict), judged together; counted like a case's slower.
RunLevel judge_whole_run(const std::vector<CaseComparison>& rows, const CompareOptions& opt) {
  RunLevel run;
  run.threshold = run_threshold(opt);
  run.confidence = 1 - opt.verdict.alpha;
  std::vector<double> ratios;
  for (const CaseComparison& r : rows) {
    if (!has_ratio(r)) continue;
    if (!r.device_marker.empty() && !opt.strict) {
      ++run.left_out;
      continue;
    }
    ratios.push_back(r.result.ratio);
  }
  RunVerdictOptions ro;
  ro.alpha = opt.verdict.alpha;
  ro.threshold = run.threshold;
  run.result = judge_run(ratios, ro);
  if (!run.result.judged) {
    run.reason = std::to_string(ratios.size()) + " case(s) to judge, a run-level verdict needs at least " +
                 std::to_string(ro.min_cases);
    if (run.left_out) run.reason += " (" + std::to_string(run.left_out) + " left out: device state abnormal tonight)";
    return run;
  }
  if (run.result.verdict != Verdict::slower) return run;
  if (opt.correctness_only) run.not_counted = "timings not gated (correctness only)";
  run.counted = run.not_counted.empty();
  return run;
}

}  // namespace

double run_threshold(const CompareOptions& opt) {
  return opt.run_threshold >= 0 ? opt.run_threshold : opt.verdict.threshold / 2;
}

int compare_exit_code(const CompareReport& rep) {
  return rep.regressions > 0 || rep.missing > 0 || rep.run.counted ? 1 : 0;
}

std::vector<FieldDifference> fingerprint_differences(const ResultFile& base,
                                                     const ResultFile& next) {
  std::vector<FieldDifference> diffs;
  if (base.machine_id.empty() || next.machine_id.empty() || base.machine_id == next.machine_id) return diffs;
  std::set<std::string> keys;
  for (const auto& [k, v] : base.machine_fields) keys.insert(k);
  for (const auto& [k, v] : next.machine_fields) keys.insert(k);
  auto value = [](const ResultFile& r, const std::string& k) {
    const auto it = r.machine_fields.find(k);
    return it == r.machine_fields.end() ? std::string("(absent)") : it->second;
  };
  for (const std::string& k : keys)
    if (value(base, k) != value(next, k)) diffs.push_back({k, value(base, k), value(next, k)});
  if (diffs.empty())  // same fields yet different hashes: the hash recipe changed
    diffs.push_back({"machine", base.machine_id, next.machine_id});
  return diffs;
}

CompareReport compare_results(const ResultFile& base, const ResultFile& next,
                              const CompareOptions& opt) {
  CompareReport rep;
  rep.base_path = base.path;
  rep.new_path = next.path;
  rep.options = opt;
  rep.machine_differences = fingerprint_differences(base, next);
  if (!rep.machine_differences.empty()) {
    std::string msg = "BASE " + base.path + " and NEW " + next.path +
                      " come from different machines (machine " + base.machine_id + " vs " +
                      next.machine_id + "):";
    for (const FieldDifference& d : rep.machine_differences)
      msg += "\n  " + d.field + ": \"" + d.base_value + "\" vs \"" + d.new_value + "\"";
    if (!opt.allow_different_machines)
      throw UsageError(msg + "\nTheir timings are not comparable; pass "
                             "--allow-different-machines to compare them anyway.");
    rep.notes.push_back(msg + "\n(compared anyway: --allow-different-machines)");
  }
  rep.base_machine = base.machine_id;
  rep.new_machine = next.machine_id;
  rep.stack_changes = stack_changes(base.stack, next.stack);
  rep.base_migrated = base.migrated;  // JSON only: every result written before the split is one
  rep.new_migrated = next.migrated;
  for (const ResultFile* r : {&base, &next})
    if (r->machine_id.empty())
      rep.notes.push_back(r->path + " has no machine fingerprint (plain Google Benchmark "
                                    "JSON?): cannot check that both ran on the same machine");
  if (base.timing == "cpu" || next.timing == "cpu") {
    const std::string who = base.timing == next.timing ? "both results hold" : "one result holds";
    const std::string& backend = base.timing == "cpu" ? base.backend : next.backend;
    rep.notes.push_back(who + " CPU timings (backend " + backend + "), not GPU timings");
  }

  std::unordered_map<std::string, const ResultCase*> by_name;
  for (const ResultCase& c : next.cases) by_name.emplace(c.name, &c);
  std::set<std::string> matched;
  std::vector<double> ratios;  // of the rows with one (has_ratio), for the geometric mean
  for (const ResultCase& b : base.cases) {
    const auto it = by_name.find(b.name);
    if (it == by_name.end()) {
      rep.only_in_base.push_back(b.name);
      continue;
    }
    matched.insert(b.name);
    const ResultCase& n = *it->second;
    if (!b.ok || b.samples_us.empty()) {
      rep.not_comparable.push_back(b.name + ": failed in BASE" +
                                   (b.reason.empty() ? "" : " (" + b.reason + ")"));
      continue;
    }
    CaseComparison row = judge(b, n, opt);
    if (has_ratio(row)) ratios.push_back(row.result.ratio);
    rep.regressions += row.counted ? 1 : 0;
    rep.error_rises += row.error_rose() ? 1 : 0;
    rep.error_compared += row.accuracy ? 1 : 0;
    rep.sol_compared += row.sol ? 1 : 0;
    rep.sol_falls += row.sol_fell() ? 1 : 0;
    rep.not_counted += row.not_counted.empty() && !(row.sol && row.sol->fell() && !row.sol->counted) ? 0 : 1;
    rep.rows.push_back(std::move(row));
  }
  for (const ResultCase& n : next.cases)
    if (!matched.count(n.name)) rep.only_in_new.push_back(n.name);
  if (matched.empty())
    throw UsageError("no case of NEW " + next.path + " matches a case of BASE " + base.path + " (BASE has " +
                     std::to_string(base.cases.size()) + ": " + sample_names(base.cases) + "; NEW has " +
                     std::to_string(next.cases.size()) + ": " + sample_names(next.cases) +
                     "). Compare runs of the same sweep (same variants, dtypes, sizes, GPU counts, cache).");
  if (!opt.allow_missing) rep.missing = int(rep.only_in_base.size());
  if (opt.correctness_only)
    rep.notes.push_back("correctness only: failed and missing cases fail the gate; slower cases are reported, "
                        "not counted (timings are not gated)");
  if (rep.not_counted > 0 && !opt.correctness_only)
    rep.notes.push_back(std::to_string(rep.not_counted) +
                        " slower case(s) not counted: NEW's device state was abnormal for them (throttling, "
                        "clock change, downtrained link or other processes); --strict counts them");
  rep.geomean_ratio = geometric_mean(ratios);
  rep.run = judge_whole_run(rep.rows, opt);
  if (rep.run.left_out > 0 && rep.run.result.judged)
    rep.notes.push_back("run-level verdict: " + std::to_string(rep.run.left_out) +
                        " case(s) left out, NEW's device state was abnormal for them; --strict counts them");

  std::stable_sort(rep.rows.begin(), rep.rows.end(),
                   [](const CaseComparison& x, const CaseComparison& y) {
                     // Failed first, then the rows whose error rose, then by verdict: verdict
                     // order is severity order (failed, slower, noisy, same, faster).
                     const bool xf = x.result.verdict == Verdict::failed, yf = y.result.verdict == Verdict::failed;
                     if (xf != yf) return xf;
                     if (!xf && x.error_rose() != y.error_rose()) return x.error_rose();
                     if (x.result.verdict != y.result.verdict)
                       return x.result.verdict < y.result.verdict;
                     if (x.result.verdict == Verdict::failed) return false;
                     return x.result.ratio > y.result.ratio;
                   });
  return rep;
}

}  // namespace arbench
