// A row of results_csv's output (bench/results/report.hpp) by its header's column names, for the
// tests that read the CSV (test_report_csv.cpp, test_error_figures.cpp).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace arbench::test {

// The cells of one CSV line (RFC 4180 quoting: enough for the tests).
inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) out.emplace_back();
    else out.back() += ch;
  }
  return out;
}

// Data row `index` (0: the first after the header) as column name -> cell; a row with another
// number of cells than the header fails the test.
inline std::map<std::string, std::string> csv_row(const std::string& csv, int index) {
  std::istringstream in(csv);
  std::string header, line;
  std::getline(in, header);
  for (int i = 0; i <= index; ++i) std::getline(in, line);
  const auto keys = split_csv_line(header), values = split_csv_line(line);
  EXPECT_EQ(keys.size(), values.size()) << line;
  std::map<std::string, std::string> m;
  for (std::size_t i = 0; i < keys.size() && i < values.size(); ++i) m[keys[i]] = values[i];
  return m;
}

}  // namespace arbench::test
