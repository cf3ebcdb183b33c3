#include "console/console_table.hpp"

#include <cstdio>
#include <sstream>
#include <utility>

namespace arbench {
namespace {

constexpr int kMedianW = 9, kSpreadW = 17, kBusbwW = 10, kPipelinedW = 12, kSmsW = 3, kErrorW = 9, kSolW = 6;
constexpr const char* kErrorHead = "rms err %";  // rms_rel_err in percent: a fixed unit, no exponent

std::string pad_right(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string pad_left(const std::string& s, int width) {
  return int(s.size()) >= width ? s : std::string(std::size_t(width - int(s.size())), ' ') + s;
}

// `v` with 2 decimals, fewer when that would exceed `chars` (the unit stays the column's).
std::string fixed(double v, int chars) {
  char b[48];
  for (int decimals = 2; decimals >= 0; --decimals) {
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    if (int(std::string(b).size()) <= chars) break;
  }
  return b;
}

std::string number(double v, int width) { return pad_left(fixed(v, width), width); }

// "allreduce/ring/bf16/gpus:8/bytes:1024" -> {"allreduce", "ring/bf16/gpus:8/bytes:1024"}
std::pair<std::string, std::string> split_family(const std::string& name) {
  const auto slash = name.find('/');
  if (slash == std::string::npos) return {"", name};
  return {name.substr(0, slash), name.substr(slash + 1)};
}

double counter(const benchmark::BenchmarkReporter::Run& run, const char* key, double fallback) {
  const auto it = run.counters.find(key);
  return it == run.counters.end() ? fallback : double(it->second.value);
}

}  // namespace

ConsoleTable::ConsoleTable(const std::vector<std::string>& case_names, bool checked, std::set<std::string> lossy_cases,
                           bool floors)
    : checked_(checked), lossy_(std::move(lossy_cases)), floors_(floors) {
  name_width_ = std::string("case").size();
  for (const auto& n : case_names) name_width_ = std::max(name_width_, split_family(n).second.size());
  for (const auto& n : case_names)  // the family heading sits in the row names' indent + column
    if (const std::size_t f = split_family(n).first.size(); f > 2) name_width_ = std::max(name_width_, f - 2);
  // The figures take the rest of the width; a longer name gets a line of its own (ReportRuns).
  const int figures = 2 + kMedianW + 2 + kSpreadW + 2 + kBusbwW + 2 + kPipelinedW + 2 + kSmsW + 2 + (floors_ ? kSolW + 2 : 0) +
                      (lossy_.empty() ? 0 : kErrorW + 2) + int(std::string("unchecked").size());
  name_width_ = std::min(name_width_, std::size_t(kWidthLimit - 2 - figures));
}

bool ConsoleTable::ReportContext(const Context&) { return true; }  // arbench's banner says it all

void ConsoleTable::print_header(const std::string& family) {
  std::ostream& o = GetOutputStream();
  o << "\n" << pad_right(family, name_width_ + 2) << "  " << pad_left("median us", kMedianW) << "  "
    << pad_left("p10-p90 us", kSpreadW) << "  " << pad_left("busbw GB/s", kBusbwW) << "  "
    << pad_left("pipelined us", kPipelinedW) << "  " << pad_left("SMs", kSmsW) << "  " << (floors_ ? pad_left("% SOL", kSolW - 1) + "   " : "")
    << (lossy_.empty() ? "" : pad_left(kErrorHead, kErrorW) + "  ")
    << "check\n";
}

// The error column's cell and its separator ("" when the run has no lossy case): the rms relative
// error in percent with 3 decimals; `exact` for an exact variant; `-` for a lossy case without
// the figure (unchecked).
std::string ConsoleTable::error_cell(const Run& run) const {
  if (lossy_.empty()) return "";
  if (!lossy_.count(run.benchmark_name())) return pad_left("exact", kErrorW) + "  ";
  const double err = counter(run, "rms_rel_err", -1);
  if (!(err >= 0)) return pad_left("-", kErrorW) + "  ";
  char b[48];
  std::snprintf(b, sizeof b, "%.3f", err * 100);
  return pad_left(int(std::string(b).size()) <= kErrorW ? b : fixed(err * 100, kErrorW), kErrorW) + "  ";
}

// The SMs column's cell and its separator: the SMs one op takes (docs/output.md, "sms"), `-` when
// unknown (NCCL picks its channels per call).
std::string ConsoleTable::sms_cell(const Run& run) const {
  const double sms = counter(run, "sms", -1);
  return pad_left(sms >= 0 ? std::to_string(static_cast<long long>(sms)) : "-", kSmsW) + "  ";
}

// The floor column's cell and its separator ("" in a run without floors): 100 x floor / median
// with one decimal, a `!` after it when the case beat its floor; `-` for a case without one.
std::string ConsoleTable::sol_cell(const Run& run) const {
  if (!floors_) return "";
  const double pct = counter(run, "pct_of_sol", -1);
  if (!(pct >= 0)) return pad_left("-", kSolW - 1) + "   ";
  char b[48];
  std::snprintf(b, sizeof b, "%.1f", pct);
  const std::string text = int(std::string(b).size()) <= kSolW - 1 ? b : fixed(pct, kSolW - 1);
  return pad_left(text, kSolW - 1) + (pct > 100 ? "!" : " ") + "  ";
}

void ConsoleTable::ReportRuns(const std::vector<Run>& runs) {
  std::ostream& o = GetOutputStream();
  for (const Run& run : runs) {
    const auto [family, row] = split_family(run.benchmark_name());
    if (family != family_) {
      print_header(family);
      family_ = family;
    }
    std::string line = "  " + pad_right(row, name_width_) + "  ";
    if (row.size() > name_width_) line = "  " + row + "\n  " + std::string(name_width_, ' ') + "  ";
    if (run.error_occurred) {  // no figures to show: the reason gets the row (the footer repeats it in full)
      line += "FAILED: " + run.error_message;
      const std::size_t last = line.rfind('\n') == std::string::npos ? 0 : line.rfind('\n') + 1;
      if (int(line.size() - last) > kWidthLimit) line = line.substr(0, last + kWidthLimit - 3) + "...";
    } else {
      const double p10 = counter(run, "p10_us", 0), p90 = counter(run, "p90_us", 0);
      const double pipelined = counter(run, "pipelined_us", -1);
      const int half = (kSpreadW - 1) / 2;
      const std::string spread = fixed(p10, half) + "-" + fixed(p90, half);
      line += number(run.GetAdjustedRealTime(), kMedianW) + "  " + pad_left(spread, kSpreadW) + "  " +
              number(counter(run, "busbw_GBps", 0), kBusbwW) + "  " +
              (pipelined < 0 ? pad_left("-", kPipelinedW) : number(pipelined, kPipelinedW)) + "  " +
              sms_cell(run) + sol_cell(run) + error_cell(run) + (checked_ ? "ok" : "unchecked");
      // An abnormal device state (the label "DEVICE: ..."): a line of its own under the row
      // (the row has no room for it), cut to the width; the footer says it in full.
      if (!run.report_label.empty()) {
        std::string note = "    " + run.report_label;
        if (int(note.size()) > kWidthLimit) note = note.substr(0, kWidthLimit - 3) + "...";
        line += "\n" + note;
      }
    }
    o << line << "\n";
  }
  o << std::flush;  // rows appear as cases finish, also through a pipe
}

bool WideConsoleReporter::ReportContext(const Context& context) {
  std::ostringstream block;
  std::ostream& err = GetErrorStream();
  SetErrorStream(&block);
  const bool ok = benchmark::ConsoleReporter::ReportContext(context);
  SetErrorStream(&err);
  std::istringstream lines(block.str());
  for (std::string line; std::getline(lines, line);)
    if (line.find("Library was built as DEBUG") == std::string::npos) err << line << "\n";
  return ok;
}

}  // namespace arbench
