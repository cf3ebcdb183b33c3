// CompareReport → text, markdown, JSON; see compare_report.hpp.
#include "analysis/compare_report.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "analysis/report_table.hpp"

namespace arbench {
namespace {

std::string summary_line(const CompareReport& rep) {
  std::map<Verdict, int> counts;
  for (const CaseComparison& r : rep.rows) ++counts[r.result.verdict];
  std::string s = rep.regressions ? std::to_string(rep.regressions) + " regression(s)"
                                  : std::string("no regression");
  s += " in " + std::to_string(rep.rows.size()) + " compared case(s):";
  for (Verdict v : {Verdict::failed, Verdict::slower, Verdict::noisy, Verdict::same,
                    Verdict::faster})
    s += " " + std::string(verdict_name(v)) + " " + std::to_string(counts[v]);
  return s;
}

std::string human(const CompareReport& rep, bool markdown) {
  const auto& o = rep.options.verdict;
  std::string out;
  const std::string code = markdown ? "`" : "";
  out += (markdown ? "### arbench compare\n\n" : "arbench compare\n");
  out += "BASE " + code + rep.base_path + code + "\nNEW  " + code + rep.new_path + code + "\n";
  out += "alpha " + format_fixed(o.alpha, 3) + ", threshold " +
         format_fixed(o.threshold * 100, 1) +
         "% (noisy = median moved by at least the threshold but p >= alpha)\n\n";
  for (const std::string& n : rep.notes) out += (markdown ? "> note: " : "note: ") + n + "\n";
  if (!rep.notes.empty()) out += "\n";

  ReportTable t({"case", "base us", "new us", "change", "p", "verdict"},
                {false, true, true, true, true, false});
  for (const CaseComparison& r : rep.rows) {
    std::string verdict(verdict_name(r.result.verdict));
    if (r.result.verdict == Verdict::failed) verdict += " (" + r.reason + ")";
    t.add_row({markdown ? "`" + r.name + "`" : r.name, format_fixed(r.result.base_median, 2),
               format_fixed(r.result.new_median, 2), format_percent_change(r.result.ratio),
               r.result.verdict == Verdict::failed ? "" : format_p_value(r.result.p_value),
               markdown && is_regression(r.result.verdict) ? "**" + verdict + "**" : verdict});
  }
  t.add_row({"geometric mean", "", "", format_percent_change(rep.geomean_ratio), "", ""});
  out += markdown ? t.markdown() : t.text();

  auto list = [&](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    out += std::string("\n") + title + " (" + std::to_string(names.size()) + "):\n";
    for (const std::string& n : names) out += (markdown ? "- `" + n + "`" : "  " + n) + "\n";
  };
  list("Only in BASE", rep.only_in_base);
  list("Only in NEW", rep.only_in_new);
  list("Not comparable", rep.not_comparable);
  out += "\n" + std::string(markdown ? "**" : "") + summary_line(rep) +
         (markdown ? "**" : "") + "\n";
  return out;
}

nlohmann::json as_json(const CompareReport& rep) {
  nlohmann::json j;
  j["base"] = rep.base_path;
  j["new"] = rep.new_path;
  j["alpha"] = rep.options.verdict.alpha;
  j["threshold"] = rep.options.verdict.threshold;
  j["cases"] = nlohmann::json::array();
  for (const CaseComparison& r : rep.rows) {
    j["cases"].push_back({{"name", r.name},
                          {"base_median_us", r.result.base_median},
                          {"new_median_us", r.result.new_median},
                          {"ratio", r.result.ratio},
                          {"p_value", r.result.p_value},
                          {"verdict", verdict_name(r.result.verdict)},
                          {"base_samples", r.base_samples},
                          {"new_samples", r.new_samples},
                          {"reason", r.reason}});
  }
  j["geomean_ratio"] = rep.geomean_ratio;
  j["only_in_base"] = rep.only_in_base;
  j["only_in_new"] = rep.only_in_new;
  j["not_comparable"] = rep.not_comparable;
  j["notes"] = rep.notes;
  j["machine_differences"] = nlohmann::json::array();
  for (const FieldDifference& d : rep.machine_differences)
    j["machine_differences"].push_back(
        {{"field", d.field}, {"base", d.base_value}, {"new", d.new_value}});
  j["regressions"] = rep.regressions;
  return j;
}

}  // namespace

std::optional<ReportFormat> parse_report_format(std::string_view s) {
  if (s == "text") return ReportFormat::text;
  if (s == "markdown" || s == "md") return ReportFormat::markdown;
  if (s == "json") return ReportFormat::json;
  return std::nullopt;
}

std::string format_compare(const CompareReport& rep, ReportFormat format) {
  switch (format) {
    case ReportFormat::json: return as_json(rep).dump(2) + "\n";
    case ReportFormat::markdown: return human(rep, true);
    case ReportFormat::text: break;
  }
  return human(rep, false);
}

}  // namespace arbench
