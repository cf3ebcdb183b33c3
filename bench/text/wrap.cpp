#include "text/wrap.hpp"

#include <algorithm>
#include <sstream>

namespace arbench {

std::string wrap(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out;
  bool first = true;
  const auto emit = [&](const std::string& line) {
    if (!first) out += "\n" + std::string(indent, ' ');
    out += line;
    first = false;
  };
  for (std::size_t start = 0;;) {
    const std::size_t nl = text.find('\n', start);
    const std::string para = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    const std::size_t lead = std::min(para.find_first_not_of(' '), para.size());
    std::istringstream words(para.substr(lead));
    std::string word, line(lead, ' ');
    bool any = false;
    while (words >> word) {
      if (any && line.size() + 1 + word.size() > width) {
        emit(line);
        line.assign(lead, ' ');
        any = false;
      }
      line += (any ? " " : "") + word;
      any = true;
    }
    emit(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  std::replace(out.begin(), out.end(), kKeepTogether, ' ');
  return out;
}

std::string fit_line(const std::string& line, std::size_t indent, std::size_t width) {
  // Breaks at the last space that keeps a line within `width`; the spacing inside each piece
  // (aligned columns) is kept as it was.
  std::string out, rest = line;
  std::size_t lead = 0;  // the current line's indent
  while (lead + rest.size() > width) {
    const std::size_t room = width - lead;
    std::size_t cut = rest.rfind(' ', room);
    while (cut != std::string::npos && cut > 0 && rest[cut - 1] == ' ') --cut;  // before a run of spaces
    if (cut == std::string::npos || cut == 0 || rest.find_first_not_of(' ') >= cut) {
      cut = rest.find(' ', room);  // a word longer than the line: break after it
      if (cut == std::string::npos) break;
    }
    out += std::string(lead, ' ') + rest.substr(0, cut) + "\n";
    const std::size_t next = rest.find_first_not_of(' ', cut);
    rest = next == std::string::npos ? std::string() : rest.substr(next);
    lead = indent;
  }
  return out + std::string(lead, ' ') + rest + "\n";
}

}  // namespace arbench
