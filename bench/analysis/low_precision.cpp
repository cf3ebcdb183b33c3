// Where the lossy all-reduce variants win, with their error; the rule is in low_precision.hpp.
#include "analysis/low_precision.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "analysis/verdict/mann_whitney.hpp"
#include "analysis/tune_report.hpp"  // format_size

namespace arbench {
namespace {

struct SizeVerdict {
  std::uint64_t bytes = 0;
  const ResultCase* lossy = nullptr;
  const ResultCase* exact = nullptr;  // the fastest exact variant at this size
  double p_value = 1;
  bool wins = false;
};

void worst(std::optional<double>& into, const std::optional<double>& v) {
  if (v && (!into || *v > *into)) into = v;
}

std::string number(const char* format, double v) {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

}  // namespace

CaseGrid allreduce_grid(const ResultFile& result, const std::string& dtype) {
  CaseGrid g;
  for (const ResultCase& c : result.cases)
    if (c.family == "allreduce" && c.ok && !c.samples_us.empty() && c.dtype == dtype && !c.in_place &&
        !c.cold_cache && !(c.skew_us > 0))
      g[c.world][c.bytes][c.variant] = &c;
  return g;
}

std::vector<LowPrecisionWin> low_precision_wins(const CaseGrid& allreduce, const LowPrecisionOptions& opt) {
  std::set<std::string> lossy;
  for (const auto& [world, sizes] : allreduce)
    for (const auto& [bytes, variants] : sizes)
      for (const auto& [variant, c] : variants)
        if (c->has_error_figures() || (opt.lossy && opt.lossy(variant))) lossy.insert(variant);
  std::vector<LowPrecisionWin> out;
  for (const auto& [world, sizes] : allreduce) {
    for (const std::string& v : lossy) {
      std::vector<SizeVerdict> compared;
      int unchecked = 0, alone = 0;
      bool present = false;
      for (const auto& [bytes, variants] : sizes) {
        const auto it = variants.find(v);
        if (it == variants.end()) continue;
        present = true;
        if (!it->second->has_error_figures()) {
          ++unchecked;
          continue;
        }
        SizeVerdict s{bytes, it->second};
        for (const auto& [other, c] : variants)
          if (!lossy.count(other) && (!s.exact || c->median_us < s.exact->median_us)) s.exact = c;
        if (!s.exact) {
          ++alone;
          continue;
        }
        s.p_value = mann_whitney_u(s.lossy->samples_us, s.exact->samples_us).p_value;
        s.wins = s.lossy->median_us < s.exact->median_us && s.p_value < opt.alpha;
        compared.push_back(s);
      }
      if (!present) continue;
      LowPrecisionWin w;
      w.variant = v;
      w.world = world;
      w.sizes = compared.size();
      if (unchecked)
        w.note = std::to_string(unchecked) + " size(s) without error figures left out (run with the check on)";
      if (alone)
        w.note += (w.note.empty() ? "" : "; ") + std::to_string(alone) + " size(s) without an exact variant left out";
      if (!compared.empty()) {
        // Walk down from the largest size while it wins: the last such size is the crossover.
        std::size_t first = compared.size();
        while (first > 0 && compared[first - 1].wins) --first;
        if (first < compared.size()) w.wins_from = compared[first].bytes;
        const SizeVerdict& q = compared[w.wins_from ? first : compared.size() - 1];
        w.at = q.bytes;
        w.exact_best = q.exact->variant;
        w.speedup = q.exact->median_us / q.lossy->median_us;
        w.p_value = q.p_value;
        w.largest = compared.back().bytes;
        for (std::size_t i = w.wins_from ? first : 0; i < compared.size(); ++i) {
          worst(w.max_abs_err, compared[i].lossy->max_abs_err);
          worst(w.rms_rel_err, compared[i].lossy->rms_rel_err);
        }
      }
      out.push_back(std::move(w));
    }
  }
  return out;
}

std::string low_precision_summary(const LowPrecisionWin& w) {
  std::string s = w.variant + " at " + std::to_string(w.world) + " GPUs: ";
  if (w.sizes == 0) return s + "no size to judge (" + (w.note.empty() ? "no exact variant measured beside it" : w.note) + ")";
  const std::string ratio = number("%.2f", w.speedup) + "x " + w.exact_best + " at " + format_size(w.at, "bytes") +
                            ", p " + number("%.2g", w.p_value);
  if (w.wins_from)
    s += "faster than every exact variant from " + format_size(*w.wins_from, "bytes") + " up (" + ratio +
         "); error there: ";
  else
    s += "not faster than the exact variants up to " + format_size(w.largest, "bytes") + " (" + ratio + "); error: ";
  s += "max abs " + (w.max_abs_err ? number("%.4g", *w.max_abs_err) : std::string("-")) + ", rms rel " +
       (w.rms_rel_err ? number("%.3g", *w.rms_rel_err * 100) + "%" : std::string("-"));
  if (!w.note.empty()) s += " (" + w.note + ")";
  return s;
}

}  // namespace arbench
