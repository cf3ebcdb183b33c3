// compare: match two results case by case (by name) and judge each with verdict.hpp's rule.
// Refuses results from different machines (different provenance fingerprints) unless told
// otherwise, because a cross-machine ratio measures the machines, not the change.
#pragma once

#include <string>
#include <vector>

#include "results/result_file.hpp"
#include "analysis/verdict.hpp"

namespace arbench {

struct CompareOptions {
  VerdictOptions verdict;
  bool allow_different_machines = false;
};

struct CaseComparison {
  std::string name;
  std::size_t base_samples = 0, new_samples = 0;
  SampleComparison result;
  std::string reason;  // why NEW failed, for Verdict::failed
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
  int regressions = 0;  // rows whose verdict is_regression
  CompareOptions options;
};

// Fingerprint fields that differ between the two files (both fingerprints known and unequal).
std::vector<FieldDifference> fingerprint_differences(const ResultFile& base,
                                                     const ResultFile& next);

// Throws UsageError when the fingerprints differ and !opt.allow_different_machines.
CompareReport compare_results(const ResultFile& base, const ResultFile& next,
                              const CompareOptions& opt);

}  // namespace arbench
