// --help within 120 columns: CLI11 2.1 prints each description on one line, however long (258
// columns for `run --cache`); this formatter wraps descriptions, footers and the subcommand list.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace arbench::cli {

inline constexpr std::size_t kHelpWidth = 120;
inline constexpr std::size_t kHelpColumn = 30;  // where descriptions start

class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter();
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_option_opts(const CLI::Option* opt) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
};

// Installs the formatter on `app` and every subcommand it has now.
void use_help_formatter(CLI::App& app);

}  // namespace arbench::cli
