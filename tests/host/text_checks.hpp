// Checks on a report's text: every expected piece appears in it. One failure per missing piece,
// naming it and showing the text, instead of a find() assertion per piece in every test. Also the
// text split into lines, and a docs page's generated section checked against the code's table.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace arbench::test {

// Every piece is somewhere in `text`; `what` names the text in a failure (e.g. the fixture).
inline void expect_contains_all(const std::string& text, std::initializer_list<std::string_view> pieces,
                                const std::string& what = "") {
  for (const std::string_view piece : pieces)
    EXPECT_NE(text.find(piece), std::string::npos) << what << (what.empty() ? "" : ": ") << "no \"" << piece
                                                   << "\" in\n"
                                                   << text;
}

// `text` with fit_line's wrapped lines joined back (a newline and a 4-space indent become a space),
// so a test can look for a phrase wherever the console width broke it.
inline std::string join_wrapped(std::string text) {
  for (std::size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");
  return text;
}

// `text` split into its lines (without the newlines), for checks on one line or on the line count.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Every line of `text` within `width` columns (the console's 120 unless told).
inline void expect_lines_fit(const std::string& text, std::size_t width = 120) {
  for (std::size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    EXPECT_LE(end - at, width) << text.substr(at, end - at);
}

// A docs page's section between the lines `begin` and `end` is `generated` (the code's table);
// ARBENCH_UPDATE_GOLDEN=1 rewrites it, for a deliberate change: review the diff.
inline void expect_generated_section(const std::string& page, const std::string& begin, const std::string& end,
                                     const std::string& generated) {
  const std::string path = std::string(ARBENCH_SOURCE_DIR) + "/" + page;
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  const std::size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << path << " lacks the line " << begin;
  ASSERT_NE(e, std::string::npos) << path << " lacks the line " << end;
  const std::size_t from = b + begin.size();
  if (std::getenv("ARBENCH_UPDATE_GOLDEN") != nullptr) {
    doc.replace(from, e - from, generated);
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  EXPECT_EQ(doc.substr(from, e - from), generated)
      << path << "'s table differs from the code's; rerun with ARBENCH_UPDATE_GOLDEN=1 and review the diff";
}

}  // namespace arbench::test
