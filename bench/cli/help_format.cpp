#include "cli/help_format.hpp"

#include <sstream>

#include "text/wrap.hpp"

namespace arbench::cli {
namespace {

// One left column ("  --timeout S") and its description, wrapped; the description starts on the
// next line when the left column reaches it.
std::string two_columns(const std::string& left, const std::string& description) {
  std::string out = "  " + left;
  if (description.empty()) return out + "\n";
  if (out.size() + 2 > kHelpColumn)  // at least two spaces between the columns
    out += "\n" + std::string(kHelpColumn, ' ');
  else
    out += std::string(kHelpColumn - out.size(), ' ');
  return out + wrap(description, kHelpWidth - kHelpColumn, kHelpColumn) + "\n";
}

}  // namespace

HelpFormatter::HelpFormatter() { column_width(kHelpColumn); }

std::string HelpFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  std::string left = make_option_name(opt, is_positional) + make_option_opts(opt);
  return two_columns(left, make_option_desc(opt));
}

std::string HelpFormatter::make_option_opts(const CLI::Option* opt) const {
  // The value's placeholder only: CLI11's "Excludes: ..." and "{false}" decorations are not for
  // people (the descriptions say which options exclude each other).
  if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
  if (opt->get_type_size() == 0) return {};
  return opt->get_type_name().empty() ? std::string() : " " + opt->get_type_name();
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  return two_columns(sub->get_display_name(true), sub->get_description());
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string desc = CLI::Formatter::make_description(app);
  return desc.empty() ? desc : wrap(desc.substr(0, desc.size() - 1), kHelpWidth, 0) + "\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = app->get_footer();
  return footer.empty() ? footer : wrap(footer, kHelpWidth, 0) + "\n";
}

void use_help_formatter(CLI::App& app) {
  auto fmt = std::make_shared<HelpFormatter>();
  app.formatter(fmt);
  for (CLI::App* sub : app.get_subcommands({})) sub->formatter(fmt);
}

}  // namespace arbench::cli
