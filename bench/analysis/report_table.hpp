// A small table for the compare and tune reports: aligned plain text for terminals and logs,
// GitHub markdown for PR comments and job summaries.
#pragma once

#include <string>
#include <vector>

namespace arbench {

class ReportTable {
 public:
  explicit ReportTable(std::vector<std::string> header, std::vector<bool> right_aligned = {});
  void add_row(std::vector<std::string> cells);
  std::string text() const;      // columns padded with two spaces between them
  std::string markdown() const;  // | a | b |, with |---:| for right-aligned columns

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// Number formatting shared by the reports.
std::string format_fixed(double v, int decimals);   // "nan" for NaN
std::string format_percent_change(double ratio);    // ratio 1.112 -> "+11.2%"
std::string format_p_value(double p);               // 3 significant digits, "<1e-99" floor

}  // namespace arbench
