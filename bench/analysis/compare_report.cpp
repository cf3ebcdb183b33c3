// CompareReport → text, markdown, JSON; see compare_report.hpp.
#include "analysis/compare_report.hpp"

#include "text/wrap.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "analysis/compare_stack.hpp"
#include "analysis/report_table.hpp"

namespace arbench {
namespace {

std::string summary_line(const CompareReport& rep) {
  std::map<Verdict, int> counts;
  for (const CaseComparison& r : rep.rows) ++counts[r.result.verdict];
  std::string s = rep.missing ? std::to_string(rep.missing) + " case(s) of BASE missing in NEW (failures); " : "";
  s += rep.regressions ? std::to_string(rep.regressions) + " regression(s)" : std::string("no regression");
  if (rep.error_rises) s += " (" + std::to_string(rep.error_rises) + " with a rising error)";
  if (rep.sol_falls) s += " (" + std::to_string(rep.sol_falls) + " with a falling % of SOL)";
  s += " in " + std::to_string(rep.rows.size()) + " compared case(s):";
  for (Verdict v : {Verdict::failed, Verdict::slower, Verdict::noisy, Verdict::same,
                    Verdict::faster})
    s += " " + std::string(verdict_name(v)) + " " + std::to_string(counts[v]);
  if (rep.not_counted) s += " (" + std::to_string(rep.not_counted) + " slower or fallen not counted)";
  if (rep.run.counted) s += "\nthe whole run is slower: a regression";
  return s;
}

std::string run_interval(const RunLevel& run) {
  return format_fixed(run.confidence * 100, 0) + "% CI " + format_percent_change(run.result.ci_lower) + " to " +
         format_percent_change(run.result.ci_upper);
}

// The run-level verdict in words: what moved, how sure, against which bar, and what it means.
std::string run_line(const RunLevel& run) {
  const RunVerdict& r = run.result;
  if (!r.judged) return "whole run: no verdict (" + run.reason + ")";
  const std::string bar = format_fixed(run.threshold * 100, 1) + "%";
  // Two lines, each under 120 columns: what moved and how sure, then against which bar.
  std::string s = "whole run: " + std::string(verdict_name(r.verdict)) + ": geometric mean " +
                  format_percent_change(r.geomean_ratio) + " over " + std::to_string(r.cases) + " case(s) (" +
                  run_interval(run) + ", bootstrap over cases)\n  ";
  switch (r.verdict) {
    case Verdict::slower:
      s += "the interval lies above the run threshold +" + bar + ": " +
           (run.counted ? std::string("a regression (fails the gate)") : "not counted: " + run.not_counted);
      break;
    case Verdict::faster: s += "the interval lies below the run threshold -" + bar + " (informational)"; break;
    case Verdict::noisy: s += "beyond the run threshold +-" + bar + ", but the interval reaches back across it"; break;
    default: s += "within the run threshold +-" + bar; break;
  }
  return s;
}

// Cases whose device state was abnormal tonight or differed from the baseline's, with what
// differed and whether the verdict counts: beside a "slower", the likely reason.
void device_section(const CompareReport& rep, bool markdown, std::string& out) {
  std::vector<const CaseComparison*> rows;
  for (const CaseComparison& r : rep.rows)
    if (!r.device_marker.empty() || !r.device_differences.empty()) rows.push_back(&r);
  if (rows.empty()) return;
  out += "\nDevice state abnormal in NEW or different from BASE (" + std::to_string(rows.size()) + "):\n";
  for (const CaseComparison* r : rows) {
    out += (markdown ? "- `" + r->name + "`" : "  " + r->name) + ": " + std::string(verdict_name(r->result.verdict)) +
           " " + format_percent_change(r->result.ratio) + "\n";
    const std::string pad = markdown ? "  - " : "      ";
    if (!r->device_marker.empty()) out += pad + "abnormal tonight: " + r->device_marker + "\n";
    for (const std::string& d : r->device_differences) out += pad + d + "\n";
    if (!r->not_counted.empty()) out += pad + "not counted: " + r->not_counted + "\n";
  }
}

// The lossy variants' error figures: how many were compared, and each case whose error rose or
// could not be judged, with both figures.
void accuracy_section(const CompareReport& rep, bool markdown, std::string& out) {
  if (rep.error_compared == 0) return;
  out += "\nError figures of lossy variants: " + std::to_string(rep.error_compared) + " case(s) compared, " +
         std::to_string(rep.error_rises) + " rose beyond the threshold +" +
         format_fixed(rep.options.verdict.threshold * 100, 1) + "%" + (rep.error_rises ? " (regressions):\n" : "\n");
  for (const CaseComparison& r : rep.rows) {
    if (!r.accuracy || (!r.accuracy->rose && r.accuracy->note.empty())) continue;
    out += (markdown ? "- `" + r.name + "`" : "  " + r.name) + (r.accuracy->rose ? ": error rose" : ": not judged") + "\n";
    const std::string pad = markdown ? "  - " : "      ";
    for (const ErrorFigureChange& f : r.accuracy->figures)
      out += pad + format_error_change(f) + (f.rose ? " (rose)" : "") + "\n";
    if (!r.accuracy->note.empty()) out += pad + r.accuracy->note + "\n";
  }
}

// `% of SOL` in both files: how many were compared, and each case whose % of SOL fell, or whose
// floor moved, with both figures and both floors.
void sol_section(const CompareReport& rep, bool markdown, std::string& out) {
  if (rep.sol_compared == 0) return;
  out += "\n% of SOL (100 x floor / median): " + std::to_string(rep.sol_compared) + " case(s) with a floor in both, " +
         std::to_string(rep.sol_falls) + " fell" + (rep.sol_falls ? ":\n" : "\n");
  for (const CaseComparison& r : rep.rows) {
    if (!r.sol || (!r.sol->fell() && !r.sol->floor_moved)) continue;
    const SolComparison& s = *r.sol;
    out += (markdown ? "- `" + r.name + "`" : "  " + r.name) + ": % of SOL " + format_fixed(s.base_pct, 1) + " -> " +
           format_fixed(s.new_pct, 1) + " (" + std::string(verdict_name(s.result.verdict)) + ", p " +
           format_p_value(s.result.p_value) + "); floor " + format_fixed(s.base_sol_us, 2) + " -> " +
           format_fixed(s.new_sol_us, 2) + " us" + (s.floor_moved ? " (moved)" : "") + "\n";
    if (!s.not_counted.empty()) out += (markdown ? "  - " : "      ") + std::string("not counted: ") + s.not_counted + "\n";
  }
}

// The cases whose SMs taken changed (both files recorded them): informational, never a verdict.
void sms_section(const CompareReport& rep, bool markdown, std::string& out) {
  std::string lines;
  for (const CaseComparison& r : rep.rows)
    if (r.sms_changed())
      lines += (markdown ? "- `" + r.name + "`" : "  " + r.name) + ": " + std::to_string(*r.base_sms) + " -> " +
               std::to_string(*r.new_sms) + " SMs\n";
  if (!lines.empty()) out += "\nSMs taken changed (docs/output.md, \"sms\"; not judged):\n" + lines;
}

// null without a floor in both files.
nlohmann::json sol_json(const CaseComparison& r) {
  if (!r.sol) return nullptr;
  const SolComparison& s = *r.sol;
  return {{"base_sol_us", s.base_sol_us}, {"new_sol_us", s.new_sol_us}, {"base_pct", s.base_pct},
          {"new_pct", s.new_pct},         {"ratio", s.result.ratio},     {"p_value", s.result.p_value},
          {"verdict", verdict_name(s.result.verdict)}, {"fell", s.fell()}, {"floor_moved", s.floor_moved},
          {"counted", s.counted},         {"not_counted", s.not_counted}};
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
  if (const std::string stack = stack_change_line(rep); !stack.empty())  // the head: what changed, what it did
    out += (markdown ? "**" + stack + "**" : stack) + "\n\n";
  for (const std::string& n : rep.notes)
    out += markdown ? "> note: " + n + "\n" : fit_line("note: " + n, 6);
  if (!rep.notes.empty()) out += "\n";

  ReportTable t({"case", "base us", "new us", "change", "p", "verdict"},
                {false, true, true, true, true, false});
  for (const CaseComparison& r : rep.rows) {
    std::string verdict(verdict_name(r.result.verdict));
    if (r.result.verdict == Verdict::failed) verdict += " (" + r.reason + ")";
    if (!r.not_counted.empty()) verdict += " (not counted)";
    if (r.within_noise) verdict += " (within recorded noise)";
    if (r.error_rose()) verdict += ", error rose";
    if (r.sol_fell()) verdict += r.sol->counted ? ", % of SOL fell" : ", % of SOL fell (not counted)";
    t.add_row({markdown ? "`" + r.name + "`" : r.name, format_fixed(r.result.base_median, 2),
               format_fixed(r.result.new_median, 2), format_percent_change(r.result.ratio),
               r.result.verdict == Verdict::failed ? "" : format_p_value(r.result.p_value),
               markdown && r.counted ? "**" + verdict + "**" : verdict});
  }
  const RunLevel& run = rep.run;
  if (run.result.judged)
    t.add_row({"whole run: geometric mean (" + run_interval(run) + ")", "", "",
               format_percent_change(run.result.geomean_ratio), "", std::string(verdict_name(run.result.verdict))});
  else
    t.add_row({"geometric mean", "", "", format_percent_change(rep.geomean_ratio), "", ""});
  out += markdown ? t.markdown() : t.text();

  auto list = [&](const char* title, const std::vector<std::string>& names, const std::string& why = {}) {
    if (names.empty()) return;
    out += std::string("\n") + title + " (" + std::to_string(names.size()) + ")" + why + ":\n";
    for (const std::string& n : names) out += (markdown ? "- `" + n + "`" : "  " + n) + "\n";
  };
  device_section(rep, markdown, out);
  accuracy_section(rep, markdown, out);
  sol_section(rep, markdown, out);
  sms_section(rep, markdown, out);
  list("Only in BASE", rep.only_in_base,
       rep.missing ? ", missing in NEW: failures (--allow-missing accepts them)" : "");
  list("Only in NEW", rep.only_in_new);
  list("Not comparable", rep.not_comparable);
  out += "\n" + run_line(run) + "\n";
  out += std::string(markdown ? "**" : "") + summary_line(rep) +
         (markdown ? "**" : "") + "\n";
  return out;
}

// null for exact variants; else each figure's base, new (null when absent) and whether it rose.
nlohmann::json accuracy_json(const CaseComparison& r) {
  if (!r.accuracy) return nullptr;
  auto number = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json j = {{"rose", r.accuracy->rose}, {"note", r.accuracy->note}};
  for (const ErrorFigureChange& f : r.accuracy->figures)
    j[f.figure] = {{"base", number(f.base)}, {"new", number(f.next)}, {"rose", f.rose}};
  return j;
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
                          {"reason", r.reason},
                          {"counted", r.counted},
                          {"not_counted", r.not_counted},
                          {"within_noise", r.within_noise},
                          {"base_noise", r.base_noise >= 0 ? nlohmann::json(r.base_noise) : nlohmann::json()},
                          {"new_noise", r.new_noise >= 0 ? nlohmann::json(r.new_noise) : nlohmann::json()},
                          {"device_state", r.device_marker},
                          {"device_differences", r.device_differences},
                          {"accuracy", accuracy_json(r)},
                          {"sol", sol_json(r)},
                          {"base_sms", r.base_sms ? nlohmann::json(*r.base_sms) : nlohmann::json()},
                          {"new_sms", r.new_sms ? nlohmann::json(*r.new_sms) : nlohmann::json()}});
  }
  j["geomean_ratio"] = rep.geomean_ratio;
  const RunLevel& run = rep.run;
  auto judged_number = [&](double v) { return run.result.judged ? nlohmann::json(v) : nlohmann::json(); };
  j["run"] = {{"verdict", run.result.judged ? nlohmann::json(verdict_name(run.result.verdict)) : nlohmann::json()},
              {"geomean_ratio", run.result.geomean_ratio},
              {"ci_lower", judged_number(run.result.ci_lower)},
              {"ci_upper", judged_number(run.result.ci_upper)},
              {"confidence", run.confidence},
              {"cases", run.result.cases},
              {"left_out", run.left_out},
              {"threshold", run.threshold},
              {"method", "percentile bootstrap over cases, fixed seed"},
              {"counted", run.counted},
              {"not_counted", run.not_counted},
              {"reason", run.reason}};
  j["only_in_base"] = rep.only_in_base;
  j["only_in_new"] = rep.only_in_new;
  j["not_comparable"] = rep.not_comparable;
  j["notes"] = rep.notes;
  j["machine_differences"] = nlohmann::json::array();
  for (const FieldDifference& d : rep.machine_differences)
    j["machine_differences"].push_back(
        {{"field", d.field}, {"base", d.base_value}, {"new", d.new_value}});
  j["regressions"] = rep.regressions;
  j["error_rises"] = rep.error_rises;
  j["sol_falls"] = rep.sol_falls;
  j["not_counted"] = rep.not_counted;
  j["missing"] = rep.missing;
  j["options"] = {{"allow_missing", rep.options.allow_missing},
                  {"strict", rep.options.strict},
                  {"correctness_only", rep.options.correctness_only}};
  add_stack_json(rep, j);
  j["gate"] = compare_exit_code(rep) ? "fail" : "pass";
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
