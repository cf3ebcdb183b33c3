// Checks on a report's text: every expected piece appears in it. One failure per missing piece,
// naming it and showing the text, instead of a find() assertion per piece in every test.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

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

// Every line of `text` within `width` columns (the console's 120 unless told).
inline void expect_lines_fit(const std::string& text, std::size_t width = 120) {
  for (std::size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    EXPECT_LE(end - at, width) << text.substr(at, end - at);
}

}  // namespace arbench::test
