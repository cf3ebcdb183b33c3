#include "cli/parse_errors.hpp"

#include <regex>

#include "text/wrap.hpp"

namespace arbench::cli {

std::string parse_error_text(const CLI::ParseError& e, const std::string& sub) {
  std::string what = e.what();
  // A single-value option given more than once: CLI11 2.1.2 (Option.hpp, MultiOptionPolicy::Throw)
  // raises ArgumentMismatch::AtMost. A list option (--gpus 2 --gpus 4) takes every occurrence.
  static const std::regex at_most(R"(^(\S+): At Most 1 required but received (\d+)$)");
  std::smatch m;
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && std::regex_match(what, m, at_most))
    what = m[1].str() + " is given " + m[2].str() + " times; give it once (it takes one value)";
  return error_text("arbench: error: ", what + " (see arbench " + sub + (sub.empty() ? "" : " ") + "--help)");
}

std::string error_text(const std::string& prefix, const std::string& what) {
  std::string out, text = prefix + what;
  std::size_t start = 0;
  while (true) {
    const std::size_t nl = text.find('\n', start);
    out += fit_line(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start), 4);
    if (nl == std::string::npos || nl + 1 == text.size()) break;
    start = nl + 1;
  }
  return out;
}

}  // namespace arbench::cli
