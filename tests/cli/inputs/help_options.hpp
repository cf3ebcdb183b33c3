// The options of every subcommand as `--help` lists them (bench/cli/help_format.hpp's layout),
// for the tests that probe every option: a new option is tested the moment it appears in --help.
#pragma once

#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_util.hpp"

struct HelpOption {
  std::vector<std::string> names;  // "-f", "--step-factor"
  std::string placeholder;         // "F", "N,...", "OUTFILE"; empty for a flag
  std::string description;         // continuation lines joined
  bool positional = false;

  // The name arbench's messages use: the long one.
  std::string name() const {
    for (const auto& n : names)
      if (n.rfind("--", 0) == 0) return n;
    return names.front();
  }
  bool takes_value() const { return !placeholder.empty(); }
  bool is_list() const { return placeholder.size() > 4 && placeholder.compare(placeholder.size() - 4, 4, ",...") == 0; }
};

// The declared range "[LO < X <= HI]" at the end of a description (bench/cli/values.hpp).
struct DeclaredRange {
  double lo = 0, hi = 0;
  bool lo_open = false, hi_open = false;
  bool contains(double v) const {
    if (std::isnan(v)) return false;
    return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  }
};

inline double help_number(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (*end == 'K') v *= 1024.0;
  if (*end == 'M') v *= 1024.0 * 1024;
  if (*end == 'G') v *= 1024.0 * 1024 * 1024;
  return v;
}

inline std::optional<DeclaredRange> declared_range(const HelpOption& o) {
  static const std::regex re(R"(\[(-?[0-9.e+]+[KMG]?) (<=?) (\S+) (<=?) (-?[0-9.e+]+[KMG]?)\]\s*$)");
  std::smatch m;
  if (!std::regex_search(o.description, m, re)) return std::nullopt;
  return DeclaredRange{help_number(m[1]), help_number(m[5]), m[2] == "<", m[4] == "<"};
}

// CLI11's own type names: an option showing one was added without declaring what its value
// means (bench/cli).
inline bool undeclared_placeholder(const std::string& p) {
  static const std::regex re(R"(^(TEXT|INT|UINT|FLOAT|NUMBER|BOOLEAN|ENUM|PATH)\b|[:{}=])");
  return std::regex_search(p, re);
}

// The subcommands `arbench --help` lists.
inline std::vector<std::string> help_subcommands() {
  std::vector<std::string> subs;
  std::istringstream in(run_arbench("--help").output);
  bool in_list = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") {
      in_list = true;
      continue;
    }
    if (in_list && line.size() > 2 && line[0] == ' ' && line[2] != ' ') subs.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return subs;
}

// Every option (and positional) of `arbench SUB --help`, -h/--help excepted.
inline std::vector<HelpOption> help_options(const std::string& sub) {
  std::vector<HelpOption> opts;
  std::istringstream in(run_arbench(sub + " --help").output);
  bool positionals = false, options = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Positionals:" || line == "Options:") {
      positionals = line == "Positionals:";
      options = !positionals;
      continue;
    }
    if (line.empty()) {
      positionals = options = false;
      continue;
    }
    if (!positionals && !options) continue;
    if (line.rfind("   ", 0) == 0) {  // a description's continuation
      if (!opts.empty()) opts.back().description += " " + line.substr(line.find_first_not_of(' '));
      continue;
    }
    // The left column ends at the first two spaces (bench/cli/help_format.cpp keeps at least two
    // before a description on the same line).
    const std::size_t gap = line.find("  ", 2);
    const std::string left = line.substr(2, gap == std::string::npos ? std::string::npos : gap - 2);
    HelpOption o;
    o.positional = positionals;
    const std::size_t space = left.find(' ');
    std::stringstream names(left.substr(0, space));
    for (std::string n; std::getline(names, n, ',');) o.names.push_back(n);
    o.placeholder = space == std::string::npos ? std::string() : left.substr(space + 1);
    if (gap != std::string::npos) o.description = line.substr(line.find_first_not_of(' ', gap));
    if (o.names.front() == "-h" || o.names.front() == "--help") continue;
    opts.push_back(o);
  }
  return opts;
}
