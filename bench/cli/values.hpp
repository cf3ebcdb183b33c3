// The values a user can type, declared once per option (README.md): each helper registers an
// option on a CLI11 app with the validation that belongs to its kind, and writes into --help what
// the option accepts, in a form people read and the option tests parse:
//   numbers:  "--timeout S   bound on ... [0 < S <= 3600]"     (integers: "[1 <= N <= 8]")
//   lists:    "--gpus N,...  world sizes ... [1 <= N <= 8]"    (no empty item, each value once)
//   choices:  "--cache hot|cold ..."
//   names:    "--model NAME ..."                                (one of a set, or a free name)
// A value outside what the option accepts is a CLI::ValidationError ("--timeout: 0 is out of
// range: 0 < S <= 3600"), exit 2 before any work.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/wrap.hpp"

namespace arbench::cli {

// The numbers an option accepts: an interval, of integers or of reals. Every interval is bounded
// above: a value too large to mean anything (a timeout of 1e300 s) is refused like a negative one.
struct Range {
  long double lo = 0, hi = 0;
  bool lo_open = false, hi_open = false;
  bool integer = false;
  bool bytes = false;  // shown with K/M/G suffixes (64G)

  bool contains(long double v) const;
  // "0 < S <= 3600", "1 <= N <= 8": the constraint on `placeholder`, as --help shows it.
  std::string constraint(const std::string& placeholder) const;
};
Range ints(long double lo, long double hi);      // lo <= N <= hi, whole numbers
Range reals(long double lo, long double hi);     // lo <= X <= hi
Range positive(long double hi);                  // 0 < X <= hi
Range above(long double lo, long double hi);     // lo < X <= hi
Range byte_sizes(long double lo, long double hi); // lo <= SIZE <= hi bytes, shown as 1K, 64G

// Checks `text` against `range`: empty when it is in range, else why not ("nan is not a number",
// "1.5 is not a whole number", "0 is out of range: 0 < S <= 3600").
std::string number_problem(const std::string& text, const Range& range, const std::string& placeholder);

// How one item of a list is read: the error (empty when fine), and the value through `out`.
template <class T>
using ItemReader = std::function<std::string(const std::string& item, T& out)>;

// A number option (int, double, std::uint64_t, std::optional<...>): `placeholder` is the value's
// name in --help ("S", "N"), `description` gets the range appended.
template <class T>
CLI::Option* number(CLI::App& app, const std::string& name, T& target, const std::string& placeholder,
                    const Range& range, const std::string& description);

// A byte size ("64", "64K", "16M", "2G", binary multiples) within `range` (in bytes).
template <class T>
CLI::Option* size(CLI::App& app, const std::string& name, T& target, const Range& range,
                  const std::string& description);

// A percentage as people type it ("5", "5%", "5 %") within `range`.
template <class T>
CLI::Option* percent(CLI::App& app, const std::string& name, T& target, const Range& range,
                     const std::string& description);

// One of `choices`; --help shows "a|b|c", or `placeholder` (and the choices in the description)
// when that would be too long.
CLI::Option* choice(CLI::App& app, const std::string& name, std::string& target, const std::vector<std::string>& choices,
                    const std::string& description, const std::string& placeholder = "");

// Free text that must not be empty (a name checked later against what exists, a pattern).
CLI::Option* text(CLI::App& app, const std::string& name, std::string& target, const std::string& placeholder,
                  const std::string& description);

// A comma-separated list ("2,4,8"; the option may also be given more than once: its values join).
// Refuses an empty list or item ("2,,4", "") and a value listed twice, naming the option.
template <class T>
CLI::Option* list(CLI::App& app, const std::string& name, std::vector<T>& target, const std::string& placeholder,
                  ItemReader<T> read, const std::string& description, const std::string& constraint = "");

// Item readers for list().
ItemReader<int> int_items(const Range& range, const std::string& placeholder);
ItemReader<double> real_items(const Range& range, const std::string& placeholder);
ItemReader<std::string> choice_items(const std::vector<std::string>& choices);
ItemReader<std::string> name_items();  // any non-empty text

// Lists of numbers, with their range shown in --help.
CLI::Option* int_list(CLI::App& app, const std::string& name, std::vector<int>& target, const std::string& placeholder,
                      const Range& range, const std::string& description);
CLI::Option* real_list(CLI::App& app, const std::string& name, std::vector<double>& target,
                       const std::string& placeholder, const Range& range, const std::string& description);
// A list of choices: --help shows "a|b|c,...".
CLI::Option* choice_list(CLI::App& app, const std::string& name, std::vector<std::string>& target,
                         const std::vector<std::string>& choices, const std::string& description);

// A flag that turns something off (`--no-check` sets `target` to false), shown without CLI11's
// "{false}" decoration.
CLI::Option* off_flag(CLI::App& app, const std::string& name, bool& target, const std::string& description);

// ---- implementation details of the templates ----
CLI::Validator number_validator(const Range& range, const std::string& placeholder);
CLI::Validator size_validator(const Range& range);
CLI::Validator percent_validator(const Range& range);
std::string with_constraint(const std::string& description, const std::string& constraint);
void finish_list_option(CLI::Option* opt, const std::string& placeholder);
std::vector<std::string> split_list(const std::string& name, const std::vector<std::string>& occurrences);
[[noreturn]] void throw_listed_twice(const std::string& name, const std::string& item);

template <class T>
CLI::Option* number(CLI::App& app, const std::string& name, T& target, const std::string& placeholder,
                    const Range& range, const std::string& description) {
  return app.add_option(name, target, with_constraint(description, range.constraint(placeholder)))
      ->check(number_validator(range, placeholder))
      ->option_text(placeholder);
}

// A number typed with its unit (SIZE "64K", PCT "5%"): `read` turns it into the plain number.
template <class T>
CLI::Option* number_with_unit(CLI::App& app, const std::string& name, T& target, const std::string& placeholder,
                              const Range& range, CLI::Validator read, const std::string& description) {
  return app.add_option(name, target, with_constraint(description, range.constraint(placeholder)))
      ->transform(std::move(read))
      ->option_text(placeholder);
}

template <class T>
CLI::Option* size(CLI::App& app, const std::string& name, T& target, const Range& range,
                  const std::string& description) {
  return number_with_unit(app, name, target, "SIZE", range, size_validator(range), description);
}

template <class T>
CLI::Option* percent(CLI::App& app, const std::string& name, T& target, const Range& range,
                     const std::string& description) {
  return number_with_unit(app, name, target, "PCT", range, percent_validator(range), description);
}

template <class T>
CLI::Option* list(CLI::App& app, const std::string& name, std::vector<T>& target, const std::string& placeholder,
                  ItemReader<T> read, const std::string& description, const std::string& constraint) {
  auto* opt = app.add_option_function<std::vector<std::string>>(
      name,
      [&target, name, read](const std::vector<std::string>& occurrences) {
        std::vector<T> values;
        std::vector<std::string> texts;
        for (const std::string& item : split_list(name, occurrences)) {
          T v{};
          if (std::string why = read(item, v); !why.empty()) throw CLI::ValidationError(name, why);
          for (std::size_t k = 0; k < values.size(); ++k)
            if (values[k] == v || texts[k] == item) throw_listed_twice(name, item);
          values.push_back(v);
          texts.push_back(item);
        }
        target = std::move(values);
      },
      with_constraint(description, constraint));
  finish_list_option(opt, placeholder);
  return opt;
}

}  // namespace arbench::cli
