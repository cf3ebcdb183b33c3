// Weighing two cases; see evidence.hpp.
#include "settings/evidence.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "analysis/report_table.hpp"

namespace arbench {

Evidence weigh(const ResultCase& chosen, const ResultCase& other, const std::string& axis, std::uint64_t size,
               const VerdictOptions& opt) {
  Evidence e;
  e.axis = axis;
  e.size = size;
  e.chosen = chosen.variant;
  e.other = other.variant;
  e.chosen_us = chosen.median_us;
  e.other_us = other.median_us;
  e.chosen_n = chosen.samples_us.size();
  e.other_n = other.samples_us.size();
  const SampleComparison c = compare_samples(other.samples_us, chosen.samples_us, opt);
  e.p_value = c.p_value;
  e.significant = c.p_value < opt.alpha;
  e.beats = c.verdict == Verdict::faster;
  e.loses = c.verdict == Verdict::slower;
  return e;
}

std::string size_text(std::uint64_t size, const std::string& axis) {
  if (axis == "tokens") return std::to_string(size) + (size == 1 ? " token" : " tokens");
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
  double v = double(size);
  int unit = 0;
  while (unit < 3 && v >= 1024) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  if (v == double(std::uint64_t(v)))
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), kUnits[unit]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", v, kUnits[unit]);
  return buf;
}

std::string evidence_text(const Evidence& e) {
  const double by = e.faster_by() * 100;
  const std::string change = format_fixed(by >= 0 ? by : -by, 1) + (by >= 0 ? "% faster" : "% slower");
  const std::string verdict = e.beats || e.loses ? change
                              : e.significant    ? change + ", below the margin"
                                                 : change + ", not significant";
  char p[32];
  std::snprintf(p, sizeof p, "%.2g", e.p_value);
  return size_text(e.size, e.axis) + ": " + e.chosen + " " + format_fixed(e.chosen_us, 2) + " us vs " + e.other + " " +
         format_fixed(e.other_us, 2) + " us: " + verdict + " (p " + p + ", n " + std::to_string(e.chosen_n) + "/" +
         std::to_string(e.other_n) + ")";
}

nlohmann::json evidence_json(const Evidence& e) {
  return {{"axis", e.axis},         {"size", e.size},           {"chosen", e.chosen},
          {"other", e.other},       {"chosen_median_us", e.chosen_us}, {"other_median_us", e.other_us},
          {"faster_by", e.faster_by()}, {"p_value", e.p_value}, {"chosen_samples", e.chosen_n},
          {"other_samples", e.other_n}, {"significant", e.significant}, {"beats", e.beats},     {"loses", e.loses}};
}

}  // namespace arbench
