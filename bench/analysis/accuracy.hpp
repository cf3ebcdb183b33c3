// The error figures of lossy (low-precision, e.g. FP8 on the wire) variants across two results:
// `arbench compare` tracks them like a time. A figure rose when NEW's exceeds BASE's by more than
// the relative threshold (compare's --threshold); from an exact 0, any error is a rise. Either
// figure rising is a regression of the case (exit 1, like a slowdown) — also under
// --correctness-only and whatever the device state: the figure comes from the run's inputs and
// arithmetic, not from a clock, so CPU timing noise and throttling do not move it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/result_file.hpp"

namespace arbench {

struct ErrorFigureChange {
  std::string figure;                // "max_abs_err" | "rms_rel_err"
  std::optional<double> base, next;  // nullopt: that file does not record it
  bool rose = false;                 // both recorded and NEW's beyond the threshold
};

struct AccuracyComparison {
  std::vector<ErrorFigureChange> figures;  // the figures either file records, in that order
  bool rose = false;                       // any figure rose
  std::string note;                        // a figure one file records and the other lacks, and why
};

// Whether `next` exceeds `base` by more than `threshold` (0.05 = 5%); from base 0, any next > 0.
bool error_rose(double base, double next, double threshold);

// nullopt when neither case records an error figure (an exact variant, or an older file).
std::optional<AccuracyComparison> compare_accuracy(const ResultCase& base, const ResultCase& next, double threshold);

// "rms_rel_err 0.91% -> 1.20% (+32%)", "max_abs_err 0.0625 -> 0.125 (+100%)": rms_rel_err in
// percent, max_abs_err in the data's units; "(absent)" for a side without the figure.
std::string format_error_change(const ErrorFigureChange& f);

}  // namespace arbench
