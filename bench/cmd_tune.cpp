// `arbench tune RESULT.json [--out TABLE.json] [--format text|markdown]`: the best variant per
// size and its margin, crossovers, and the dispatch-table JSON (schema in analysis/tune_report.hpp).
// The logic lives in core/tune.cpp (host-tested); this file is only the command line.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "cli/files.hpp"
#include "cli/subcommand.hpp"
#include "cli/values.hpp"
#include "io/output_paths.hpp"
#include "arbench/variant.hpp"
#include "commands.hpp"
#include "analysis/compare_report.hpp"
#include "results/report.hpp"
#include "analysis/tune.hpp"
#include "analysis/tune_report.hpp"

namespace arbench {
namespace {

struct TuneArgs {
  std::string result, out, format = "text";
  double alpha = 0.01;
};

int run_tune(const TuneArgs& a) {
  // A dispatch table names GPU variants an engine can choose by size (analysis/tune.hpp).
  const DispatchFilter not_on_gpus = registry_dispatch_filter(Registry::builtin());
  check_output_paths({{"--out", a.out}}, {{"RESULT", a.result}});
  const ResultFile result = load_result_file(a.result);
  if (const std::string note = incomplete_note(result); !note.empty()) std::cerr << "arbench tune: warning: " << note << "\n";
  const TuneReport rep = tune_results(result, a.alpha, not_on_gpus);
  // Atomic (temp file + rename), so an engine polling TABLE.json never reads half a table.
  if (!a.out.empty()) write_file_atomically(a.out, dispatch_table_json(rep).dump(2) + "\n");
  std::cout << format_tune(rep, *parse_report_format(a.format));
  if (!a.out.empty()) std::cout << "\ndispatch table written to " << a.out << "\n";
  return kExitOk;
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  const auto [sub, args] = cli::result_subcommand<TuneArgs>(
      app, "tune", "Best variant per size, its margin and the crossovers; writes a dispatch table");
  cli::output_file(*sub, "--out", args->out, "write the dispatch-table JSON here (atomically)");
  cli::choice(*sub, "--format", args->format, {"text", "markdown", "md", "json"},
              "output format (default text; json: the dispatch table)");
  cli::number(*sub, "--alpha", args->alpha, "P", cli::above(0, 0.5),
              "significance level for 'the winner beats the runner-up' (default 0.01)");
  cli::on_run(*sub, exit_code, args, run_tune);
}

}  // namespace arbench
