// Every option of every subcommand, as `--help` lists them, probed with NaN, inf, -1, 0 and 1e300:
// each value must be refused before any work (exit 2, the message naming the option and the value
// as typed), unless the option's declared range (bench/cli/values.hpp: "[0 <= K <= 100000]" in
// --help) holds it, in which case the option's validation must accept it. An option added without
// declaring its kind shows CLI11's own type name (INT, FLOAT, TEXT) and fails here; so does one
// whose value is silently taken, whatever it is. Outputs (OUTFILE) have their own probes
// (test_cli_outputs.cpp), lists theirs too (test_cli_lists.cpp).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

#include "help_options.hpp"
#include "per_subcommand.hpp"
#include "probe_bases.hpp"

namespace {

const char* const kProbes[] = {"nan", "inf", "-1", "0", "1e300"};

// A line of `output` names `option` and, after it, `value` as a word of its own ("--timeout: 0
// is out of range", "--cache: 'nan' is not one of", "--baseline nan is not among").
bool names_option_and_value(const std::string& output, const std::string& option, const std::string& value) {
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-'; };
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find(option);
    if (at == std::string::npos) continue;
    for (std::size_t v = line.find(value, at + option.size()); v != std::string::npos; v = line.find(value, v + 1)) {
      const bool starts = !word_char(line[v - 1]) || (value[0] == '-' && line[v - 1] == ' ');
      const bool ends = v + value.size() == line.size() || !word_char(line[v + value.size()]);
      if (starts && ends) return true;
    }
  }
  return false;
}

// A probe that finds nothing to probe fails: a subcommand whose options all went unseen (a help
// the parser no longer reads, every option skipped) must not pass as probed.
void expect_probed(const std::string& sub, int probed) {
  EXPECT_GT(probed, 0) << "arbench " << sub << ": the probe probed nothing (no option that takes a value seen)";
}

void probe_every_option(const std::string& sub) {
  ASSERT_TRUE(probe_bases().count(sub)) << "`arbench " << sub << "` has no probe base: add one to tests/cli/probe_bases.hpp";
  const std::vector<HelpOption> options = help_options(sub);
  ASSERT_FALSE(options.empty()) << sub;
  int probed = 0;
  for (const HelpOption& o : options) {
    if (o.positional) {
      EXPECT_FALSE(undeclared_placeholder(o.placeholder))
          << "arbench " << sub << " " << o.name() << " shows CLI11's type '" << o.placeholder
          << "': declare it (bench/cli/README.md)";
      continue;
    }
    if (!o.takes_value()) continue;
    EXPECT_FALSE(undeclared_placeholder(o.placeholder))
        << "arbench " << sub << " " << o.name() << " " << o.placeholder
        << ": an option added without declaring what its value means; add it with bench/cli's helpers "
           "(cli::number with a range, cli::list, cli::choice, cli::output_file, ...)";
    if (o.placeholder == "OUTFILE") continue;  // any name is a file name: test_cli_outputs.cpp
    // An output folder (created when missing), `settings --plugin SOFILE` (the plugin's path on the
    // machine the engine runs on, which need not exist here) and `settings --python PYTHON` (its
    // own tests: test_settings_versions_cli.cpp): an empty name is refused.
    if (o.placeholder == "OUTDIR" || o.placeholder == "SOFILE" || o.placeholder == "PYTHON") {
      const CliResult r = run_arbench(probe_base(sub, o.name()).with(o.name(), "''"));
      ++probed;
      EXPECT_EQ(r.exit_code, 2) << "arbench " << sub << " " << o.name() << " '': an empty name\n" << r.output;
      continue;
    }
    const std::optional<DeclaredRange> range = declared_range(o);
    for (const char* probe : kProbes) {
      const double value = std::strtod(probe, nullptr);
      const bool in_range = range && range->contains(value);
      const std::string cmd = probe_base(sub, o.name()).with(o.name(), probe);
      const CliResult r = run_arbench(cmd);
      ++probed;
      if (in_range) {
        // Declared as meaningful: the option's own validation lets it through (other checks
        // may still refuse the combination).
        EXPECT_EQ(r.output.find(o.name() + ": " + probe + " "), std::string::npos)
            << "arbench " << cmd << "\n" << o.name() << " declares " << probe << " in range, but refuses it:\n"
            << r.output;
      } else {
        EXPECT_EQ(r.exit_code, 2) << "arbench " << cmd << "\n" << r.output;
        EXPECT_TRUE(names_option_and_value(r.output, o.name(), probe))
            << "arbench " << cmd << ": the message must name " << o.name() << " and the value '" << probe << "':\n"
            << r.output;
        EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran:\n" << r.output;
        EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
      }
    }
  }
  expect_probed(sub, probed);
}

}  // namespace

TEST(CliEveryOption, SubcommandsHaveProbeBases) {
  const std::vector<std::string> subs = help_subcommands();
  ASSERT_GE(subs.size(), 6u);
  for (const auto& s : subs) EXPECT_TRUE(probe_bases().count(s)) << "add `" << s << "` to tests/cli/probe_bases.hpp";
}

[[maybe_unused]] const bool kPerSubcommand =
    per_subcommand("CliEveryOption", probe_every_option,
                   {"run", "list", "compare", "tune", "step", "topo", "settings", "doctor"});

// Every subcommand --help lists is probed (was: `settings` was not, so its --alpha, --margin,
// --hidden and --gpus never met nan, inf, -1, 0 or 1e300).
TEST(CliEveryOption, EverySubcommandIsProbed) {
  const std::set<std::string>& probed = per_subcommand_registry()["CliEveryOption"];
  for (const std::string& sub : help_subcommands())
    EXPECT_TRUE(probed.count(sub)) << "`arbench " << sub << "` is not probed: add it to CliEveryOption's list";
}

TEST(CliEveryOption, AProbeOfNothingFails) {
  EXPECT_NONFATAL_FAILURE(expect_probed("settings", 0), "the probe probed nothing");
}

// The parser the probes rely on reads the help as arbench prints it.
TEST(CliEveryOption, HelpParserSeesDeclarations) {
  bool timeout = false, gpus = false, out = false;
  for (const HelpOption& o : help_options("run")) {
    if (o.name() == "--timeout") {
      timeout = true;
      ASSERT_TRUE(declared_range(o)) << o.description;
      EXPECT_TRUE(declared_range(o)->lo_open);
      EXPECT_FALSE(declared_range(o)->contains(0));
      EXPECT_TRUE(declared_range(o)->contains(10));
    }
    if (o.name() == "--gpus") gpus = o.is_list();
    if (o.name() == "--out") out = o.placeholder == "OUTFILE";
  }
  EXPECT_TRUE(timeout && gpus && out);
}
