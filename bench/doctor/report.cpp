#include "doctor/report.hpp"

#include <sstream>

#include "arbench/core/errors.hpp"
#include "io/input_file.hpp"
#include "text/wrap.hpp"

namespace arbench::doctor {
namespace {

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

constexpr std::size_t kIdWidth = 11, kVerdictWidth = 16;

}  // namespace

std::string render_report(const std::vector<Check>& checks, const std::string& head) {
  std::ostringstream os;
  os << head;
  os << "\n" << pad("check", kIdWidth) << pad("verdict", kVerdictWidth) << "what was read\n";
  for (const Check& c : checks) {
    // A check that read most of what it looks at says how much it could not read.
    std::size_t unread = 0;
    for (const Item& i : c.items) unread += i.verdict == Verdict::unknown ? 1 : 0;
    const std::string partly = unread > 0 && unread < c.items.size() && c.items.size() > 1
                                   ? "; " + std::to_string(unread) + " of " + std::to_string(c.items.size()) +
                                         " items could not be read"
                                   : "";
    os << fit_line(pad(c.id, kIdWidth) + pad(verdict_name(c.verdict()), kVerdictWidth) + c.summary + partly,
                   kIdWidth + kVerdictWidth);
  }
  const Verdict w = worst(checks);
  os << "\nOverall: " << verdict_name(w) << " (exit " << exit_code(w) << ")\n";
  for (const Check& c : checks) {
    os << "\n" << c.title << " (" << c.id << "): " << verdict_name(c.verdict()) << "\n";
    for (const Item& i : c.items) {
      os << fit_line("  " + pad(verdict_name(i.verdict), kVerdictWidth) + i.subject + ": " + i.read, kVerdictWidth + 2);
      if (!i.fix.empty()) os << fit_line(std::string(kVerdictWidth + 2, ' ') + "fix: " + i.fix, kVerdictWidth + 7);
    }
    os << fit_line("  why: " + c.why, 7);
  }
  return os.str();
}

nlohmann::json report_to_json(const std::vector<Check>& checks, const std::string& root) {
  nlohmann::json list = nlohmann::json::array();
  std::optional<bool> pull;
  for (const Check& c : checks) {
    nlohmann::json items = nlohmann::json::array();
    for (const Item& i : c.items)
      items.push_back({{"subject", i.subject}, {"verdict", verdict_name(i.verdict)}, {"read", i.read}, {"fix", i.fix}});
    list.push_back({{"id", c.id}, {"title", c.title}, {"verdict", verdict_name(c.verdict())}, {"summary", c.summary},
                    {"why", c.why}, {"items", items}, {"data", c.data}});
    if (c.id == "collapse" && c.data.contains("pull_beats_push") && c.data["pull_beats_push"].is_boolean())
      pull = c.data["pull_beats_push"].get<bool>();
  }
  const Verdict w = worst(checks);
  return {{"schema", kDoctorSchema},
          {"root", root},
          {"verdict", verdict_name(w)},
          {"exit_code", exit_code(w)},
          {"checks", list},
          {"findings", {{"pull_beats_push", pull ? nlohmann::json(*pull) : nlohmann::json()}}}};
}

std::optional<bool> pull_beats_push(const nlohmann::json& report) {
  if (!report.is_object() || !report.contains("findings") || !report["findings"].is_object()) return std::nullopt;
  const auto& f = report["findings"];
  if (!f.contains("pull_beats_push") || !f["pull_beats_push"].is_boolean()) return std::nullopt;
  return f["pull_beats_push"].get<bool>();
}

nlohmann::json read_doctor_report(const std::string& path) {
  const std::string expected = "a doctor report written by `arbench doctor --out FILE.json`";
  const nlohmann::json j = read_json_input(path, expected);
  if (!j.is_object() || j.value("schema", "") != kDoctorSchema || !j.contains("checks"))
    throw UsageError(wrong_document(path, j, expected,
                                    "no doctor report (\"schema\": \"" + std::string(kDoctorSchema) + "\")"));
  return j;
}

nlohmann::json box_findings(const nlohmann::json& report, const std::string& path) {
  const auto pull = pull_beats_push(report);
  return {{"source", path},
          {"verdict", report.value("verdict", "")},
          {"pull_beats_push", pull ? nlohmann::json(*pull) : nlohmann::json()}};
}

}  // namespace arbench::doctor
