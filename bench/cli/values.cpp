#include "cli/values.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "sweep/sizes.hpp"

namespace arbench::cli {
namespace {

std::string show(long double v, bool integer, bool bytes = false) {
  if (bytes && v >= 0 && v == std::floor(v)) return format_size(static_cast<std::size_t>(v));
  char buf[64];
  if (integer || (std::fabs(v) < 1e15L && v == std::floor(v)))
    std::snprintf(buf, sizeof buf, "%.0Lf", v);
  else
    std::snprintf(buf, sizeof buf, "%Lg", v);
  return buf;
}

bool is_word(const std::string& s, const char* w) {
  std::string lower;
  for (char c : s) lower += char(std::tolower(static_cast<unsigned char>(c)));
  return lower == w || lower == std::string("+") + w || lower == std::string("-") + w;
}

// `text` as a number: a whole number when `integer` (digits with an optional sign), else anything
// strtold reads completely. nullopt with `why` set when it is not one.
std::optional<long double> read_number(const std::string& text, bool integer, std::string& why) {
  if (text.empty()) {
    why = "an empty value is not a number";
    return std::nullopt;
  }
  if (is_word(text, "nan")) {
    why = text + " is not a number";
    return std::nullopt;
  }
  if (is_word(text, "inf") || is_word(text, "infinity")) {
    why = text + " is not a finite number";
    return std::nullopt;
  }
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  const long double v = std::strtold(s, &end);
  if (end == s || *end != '\0' || std::isspace(static_cast<unsigned char>(text.front()))) {
    why = "'" + text + "' is not a number";
    return std::nullopt;
  }
  // One rule for every number: decimal digits, an optional sign, point and exponent. strtold
  // alone would take 0x10 (hex) for a real, and an integer option would not.
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)) && std::string_view("+-.eE").find(c) == std::string_view::npos) {
      why = "'" + text + "' is not a decimal number";
      return std::nullopt;
    }
  if (!std::isfinite(v) || errno == ERANGE) {
    why = text + " is too large a number";
    return std::nullopt;
  }
  if (integer) {
    std::size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
    bool digits = i < text.size();
    for (; i < text.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(text[i]));
    if (!digits) {
      why = text + " is not a whole number";
      return std::nullopt;
    }
  }
  return v;
}

std::string out_of_range(const std::string& text, const Range& r, const std::string& placeholder) {
  return text + " is out of range: " + r.constraint(placeholder);
}

}  // namespace

bool Range::contains(long double v) const {
  if (std::isnan(v)) return false;
  const bool above_lo = lo_open ? v > lo : v >= lo;
  const bool below_hi = hi_open ? v < hi : v <= hi;
  return above_lo && below_hi;
}

std::string Range::constraint(const std::string& placeholder) const {
  return show(lo, integer, bytes) + (lo_open ? " < " : " <= ") + placeholder + (hi_open ? " < " : " <= ") +
         show(hi, integer, bytes);
}

Range ints(long double lo, long double hi) { return {lo, hi, false, false, true}; }
Range reals(long double lo, long double hi) { return {lo, hi, false, false, false}; }
Range positive(long double hi) { return {0, hi, true, false, false}; }
Range above(long double lo, long double hi) { return {lo, hi, true, false, false}; }
Range byte_sizes(long double lo, long double hi) { return {lo, hi, false, false, true, true}; }

std::string number_problem(const std::string& text, const Range& range, const std::string& placeholder) {
  std::string why;
  const auto v = read_number(text, range.integer, why);
  if (!v) return why + "; expected " + range.constraint(placeholder);
  if (!range.contains(*v)) return out_of_range(text, range, placeholder);
  return {};
}

CLI::Validator number_validator(const Range& range, const std::string& placeholder) {
  return CLI::Validator([range, placeholder](std::string& s) { return number_problem(s, range, placeholder); },
                        "", "");
}

CLI::Validator size_validator(const Range& range) {
  return CLI::Validator(
      [range](std::string& s) -> std::string {
        const auto v = parse_size(s);
        if (!v)
          return "'" + s + "' is not a size; use a byte count with an optional K, M or G suffix (binary), e.g. 64K";
        if (!range.contains(static_cast<long double>(*v)))
          return s + " is out of range: " + range.constraint("SIZE") + " (bytes)";
        s = std::to_string(*v);
        return {};
      },
      "", "");
}

CLI::Validator percent_validator(const Range& range) {
  return CLI::Validator(
      [range](std::string& s) -> std::string {
        // "5", "5%" or "5 %": one percent sign at most ("5%%" is a typo, not 5).
        std::string v = s;
        if (!v.empty() && v.back() == '%') v.pop_back();
        while (!v.empty() && v.back() == ' ') v.pop_back();
        if (v.find('%') != std::string::npos) return "'" + s + "' is not a percentage; give a number, e.g. 5 or 5%";
        if (std::string why = number_problem(v, range, "PCT"); !why.empty()) return why;
        s = v;
        return {};
      },
      "", "");
}

std::string with_constraint(const std::string& description, const std::string& constraint) {
  if (constraint.empty()) return description;
  std::string kept = constraint;
  for (char& c : kept)
    if (c == ' ') c = kKeepTogether;
  return description + " [" + kept + "]";
}

void finish_list_option(CLI::Option* opt, const std::string& placeholder) {
  opt->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->option_text(placeholder + ",...");
}

std::vector<std::string> split_list(const std::string& name, const std::vector<std::string>& occurrences) {
  std::vector<std::string> items;
  for (const std::string& text : occurrences) {
    if (text.empty())
      throw CLI::ValidationError(name, "an empty list; give one or more values separated by commas");
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = text.find(',', start);
      const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (item.empty())
        throw CLI::ValidationError(name, "'" + text + "' has an empty item; separate the values by single commas");
      items.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return items;
}

void throw_listed_twice(const std::string& name, const std::string& item) {
  throw CLI::ValidationError(name, item + " is listed twice; list each value once");
}

CLI::Option* choice(CLI::App& app, const std::string& name, std::string& target, const std::vector<std::string>& choices,
                    const std::string& description, const std::string& placeholder) {
  std::string all;
  for (const auto& c : choices) all += (all.empty() ? "" : "|") + c;
  auto* opt = app.add_option(name, target, description);
  opt->check(CLI::Validator(
      [choices](std::string& s) -> std::string {
        for (const auto& c : choices)
          if (s == c) return {};
        std::string list;
        for (std::size_t i = 0; i < choices.size(); ++i)
          list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        return "'" + s + "' is not one of " + list;
      },
      "", ""));
  opt->option_text(placeholder.empty() ? all : placeholder);
  return opt;
}

CLI::Option* text(CLI::App& app, const std::string& name, std::string& target, const std::string& placeholder,
                  const std::string& description) {
  return app.add_option(name, target, description)
      ->check(CLI::Validator(
          [](std::string& s) -> std::string { return s.empty() ? "an empty value; give one" : std::string(); }, "",
          ""))
      ->option_text(placeholder);
}

ItemReader<int> int_items(const Range& range, const std::string& placeholder) {
  return [range, placeholder](const std::string& item, int& out) -> std::string {
    if (std::string why = number_problem(item, range, placeholder); !why.empty()) return why;
    out = static_cast<int>(std::strtol(item.c_str(), nullptr, 10));
    return {};
  };
}

ItemReader<double> real_items(const Range& range, const std::string& placeholder) {
  return [range, placeholder](const std::string& item, double& out) -> std::string {
    if (std::string why = number_problem(item, range, placeholder); !why.empty()) return why;
    out = std::strtod(item.c_str(), nullptr);
    return {};
  };
}

ItemReader<std::string> choice_items(const std::vector<std::string>& choices) {
  return [choices](const std::string& item, std::string& out) -> std::string {
    for (const auto& c : choices)
      if (item == c) {
        out = item;
        return {};
      }
    std::string list;
    for (std::size_t i = 0; i < choices.size(); ++i)
      list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    return "'" + item + "' is not one of " + list;
  };
}

ItemReader<std::string> name_items() {
  return [](const std::string& item, std::string& out) -> std::string {
    out = item;
    return {};
  };
}

CLI::Option* int_list(CLI::App& app, const std::string& name, std::vector<int>& target, const std::string& placeholder,
                      const Range& range, const std::string& description) {
  return list<int>(app, name, target, placeholder, int_items(range, placeholder), description,
                   range.constraint(placeholder));
}

CLI::Option* real_list(CLI::App& app, const std::string& name, std::vector<double>& target,
                       const std::string& placeholder, const Range& range, const std::string& description) {
  return list<double>(app, name, target, placeholder, real_items(range, placeholder), description,
                      range.constraint(placeholder));
}

CLI::Option* choice_list(CLI::App& app, const std::string& name, std::vector<std::string>& target,
                         const std::vector<std::string>& choices, const std::string& description) {
  std::string all;
  for (const auto& c : choices) all += (all.empty() ? "" : "|") + c;
  return list<std::string>(app, name, target, all, choice_items(choices), description);
}

CLI::Option* off_flag(CLI::App& app, const std::string& name, bool& target, const std::string& description) {
  return app.add_flag_callback(name, [&target] { target = false; }, description);
}

}  // namespace arbench::cli
