// compare: case matching, machine check, ordering and the geometric mean; see compare.hpp.
#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "arbench/core/errors.hpp"

namespace arbench {

std::vector<FieldDifference> fingerprint_differences(const ResultFile& base,
                                                     const ResultFile& next) {
  std::vector<FieldDifference> diffs;
  if (base.fingerprint.empty() || next.fingerprint.empty() ||
      base.fingerprint == next.fingerprint)
    return diffs;
  std::set<std::string> keys;
  for (const auto& [k, v] : base.fingerprint_fields) keys.insert(k);
  for (const auto& [k, v] : next.fingerprint_fields) keys.insert(k);
  auto value = [](const ResultFile& r, const std::string& k) {
    const auto it = r.fingerprint_fields.find(k);
    return it == r.fingerprint_fields.end() ? std::string("(absent)") : it->second;
  };
  for (const std::string& k : keys)
    if (value(base, k) != value(next, k)) diffs.push_back({k, value(base, k), value(next, k)});
  if (diffs.empty())  // same fields yet different hashes: the hash recipe changed
    diffs.push_back({"fingerprint", base.fingerprint, next.fingerprint});
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
                      " come from different machines (fingerprint " + base.fingerprint + " vs " +
                      next.fingerprint + "):";
    for (const FieldDifference& d : rep.machine_differences)
      msg += "\n  " + d.field + ": \"" + d.base_value + "\" vs \"" + d.new_value + "\"";
    if (!opt.allow_different_machines)
      throw UsageError(msg + "\nTheir timings are not comparable; pass "
                             "--allow-different-machines to compare them anyway.");
    rep.notes.push_back(msg + "\n(compared anyway: --allow-different-machines)");
  }
  for (const ResultFile* r : {&base, &next})
    if (r->fingerprint.empty())
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
  double log_sum = 0;
  int log_count = 0;
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
    CaseComparison row;
    row.name = b.name;
    row.base_samples = b.samples_us.size();
    row.new_samples = n.samples_us.size();
    if (!n.ok || n.samples_us.empty()) {
      row.result.base_median = median_of(b.samples_us);
      row.result.ratio = std::nan("");
      row.result.verdict = Verdict::failed;
      row.reason = n.reason.empty() ? "no samples" : n.reason;
    } else {
      row.result = compare_samples(b.samples_us, n.samples_us, opt.verdict);
      if (row.result.ratio > 0 && std::isfinite(row.result.ratio)) {
        log_sum += std::log(row.result.ratio);
        ++log_count;
      }
    }
    if (is_regression(row.result.verdict)) ++rep.regressions;
    rep.rows.push_back(std::move(row));
  }
  for (const ResultCase& n : next.cases)
    if (!matched.count(n.name)) rep.only_in_new.push_back(n.name);
  rep.geomean_ratio = log_count ? std::exp(log_sum / log_count) : 1.0;

  std::stable_sort(rep.rows.begin(), rep.rows.end(),
                   [](const CaseComparison& x, const CaseComparison& y) {
                     // Verdict order is severity order (failed, slower, noisy, same, faster).
                     if (x.result.verdict != y.result.verdict)
                       return x.result.verdict < y.result.verdict;
                     if (x.result.verdict == Verdict::failed) return false;
                     return x.result.ratio > y.result.ratio;
                   });
  return rep;
}

}  // namespace arbench
