// Comparing lossy variants' error figures; see accuracy.hpp.
#include "analysis/accuracy.hpp"

#include <cmath>
#include <cstdio>
#include <tuple>

namespace arbench {
namespace {

std::string figure_text(const std::string& figure, const std::optional<double>& v) {
  if (!v) return "(absent)";
  char b[48];
  if (figure == "rms_rel_err") std::snprintf(b, sizeof b, "%.3g%%", *v * 100);
  else std::snprintf(b, sizeof b, "%.4g", *v);
  return b;
}

}  // namespace

bool error_rose(double base, double next, double threshold) {
  if (!(next > 0)) return false;
  if (!(base > 0)) return true;  // an exact result became inexact
  return next > base * (1 + threshold);
}

std::optional<AccuracyComparison> compare_accuracy(const ResultCase& base, const ResultCase& next, double threshold) {
  if (!base.has_error_figures() && !next.has_error_figures()) return std::nullopt;
  AccuracyComparison a;
  std::vector<std::string> lacking;
  for (auto [name, b, n] : {std::tuple{"max_abs_err", base.max_abs_err, next.max_abs_err},
                            std::tuple{"rms_rel_err", base.rms_rel_err, next.rms_rel_err}}) {
    if (!b && !n) continue;
    ErrorFigureChange f{name, b, n, b && n && error_rose(*b, *n, threshold)};
    a.rose = a.rose || f.rose;
    if (!b || !n) lacking.push_back(std::string(name) + (b ? " not in NEW" : " not in BASE"));
    a.figures.push_back(f);
  }
  for (const std::string& l : lacking) a.note += (a.note.empty() ? "" : "; ") + l;
  if (!a.note.empty())
    a.note += " (not judged: a run with --no-check, or a file written before arbench recorded the figure)";
  return a;
}

std::string format_error_change(const ErrorFigureChange& f) {
  std::string s = f.figure + " " + figure_text(f.figure, f.base) + " -> " + figure_text(f.figure, f.next);
  if (f.base && f.next && *f.base > 0) {
    char b[48];
    std::snprintf(b, sizeof b, " (%+.0f%%)", (*f.next / *f.base - 1) * 100);
    s += b;
  } else if (f.base && f.next && *f.next > 0) {
    s += " (was exact)";
  }
  return s;
}

}  // namespace arbench
