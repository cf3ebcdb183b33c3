// ReportTable and number formatting; see report_table.hpp.
#include "analysis/report_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace arbench {

ReportTable::ReportTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : header_(std::move(header)), right_(std::move(right_aligned)) {
  right_.resize(header_.size(), false);
}

void ReportTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string ReportTable::text() const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = header_[c].size();
    for (const auto& r : rows_) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      if (c) out += "  ";
      out += right_[c] ? pad + cells[c] : (c + 1 == cells.size() ? cells[c] : cells[c] + pad);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string ReportTable::markdown() const {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const std::string& c : cells) {
      std::string escaped;
      for (char ch : c) escaped += ch == '|' ? std::string("\\|") : std::string(1, ch);
      out += " " + escaped + " |";
    }
    return out + "\n";
  };
  std::string out = line(header_) + "|";
  for (bool r : right_) out += r ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string format_fixed(double v, int decimals) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_percent_change(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1) * 100);
  return buf;
}

std::string format_p_value(double p) {
  if (std::isnan(p)) return "n/a";
  if (p < 1e-99) return "<1e-99";
  char buf[64];
  std::snprintf(buf, sizeof buf, p < 1e-3 ? "%.2e" : "%.3f", p);
  return buf;
}

}  // namespace arbench
