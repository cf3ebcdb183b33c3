// Text within the console's width (README.md).
#pragma once

#include <cstddef>
#include <string>

namespace arbench {

inline constexpr std::size_t kConsoleWidth = 120;

// Keeps a group of words on one line when `wrap` breaks a paragraph: write it with this
// character instead of its spaces ("[0 < S <= 3600]"); `wrap` prints it as a space.
inline constexpr char kKeepTogether = '\x1f';

// `text` broken at spaces into lines of at most `width` columns (a word longer than that stays
// whole). Lines after the first are indented by `indent` spaces; the first is not (the caller
// placed it). A paragraph's own leading spaces carry over to its continuation lines; newlines in
// `text` are kept. No trailing newline is added.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent);

// `line` as it is when it fits in `width`, else wrapped with continuation lines indented by
// `indent`; ends with a newline.
std::string fit_line(const std::string& line, std::size_t indent, std::size_t width = kConsoleWidth);

}  // namespace arbench
