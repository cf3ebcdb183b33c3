// `arbench compare BASE.json NEW.json`: per-case medians, ratio, Mann-Whitney p and a verdict;
// exit 0 = no regression, 1 = regression or missing cases, 2 = unusable input (different
// machines, or no case in common).
// The logic lives in core/compare.cpp (host-tested); this file is only the command line.
#include <iostream>
#include <memory>

#include "arbench/core/errors.hpp"
#include "cli/subcommand.hpp"
#include "cli/values.hpp"
#include "commands.hpp"
#include "analysis/compare.hpp"
#include "analysis/compare_report.hpp"

namespace arbench {
namespace {

struct CompareArgs {
  std::string base, next, format = "text";
  double alpha = 0.01;
  double threshold_percent = 5;
  double run_threshold_percent = -1;  // unset: half of --threshold
  bool allow_different_machines = false;
  bool allow_missing = false, strict = false, correctness_only = false;
};

int run_compare(const CompareArgs& a) {
  if (a.strict && a.correctness_only)
    throw UsageError("--strict with --correctness-only: --strict counts more slower cases, --correctness-only counts none; "
                     "give one of them");
  CompareOptions opt;
  opt.verdict.alpha = a.alpha;
  opt.verdict.threshold = a.threshold_percent / 100;
  opt.allow_different_machines = a.allow_different_machines;
  opt.allow_missing = a.allow_missing;
  opt.strict = a.strict;
  opt.correctness_only = a.correctness_only;
  opt.run_threshold = a.run_threshold_percent < 0 ? -1 : a.run_threshold_percent / 100;
  const ResultFile base = load_result_file(a.base);
  const ResultFile next = load_result_file(a.next);
  for (const ResultFile* r : {&base, &next})
    if (const std::string note = incomplete_note(*r); !note.empty()) std::cerr << "arbench compare: warning: " << note << "\n";
  const CompareReport rep = compare_results(base, next, opt);
  std::cout << format_compare(rep, *parse_report_format(a.format)) << std::flush;
  return compare_exit_code(rep) ? kExitFailure : kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  const auto [sub, args] = cli::subcommand<CompareArgs>(
      app, "compare", "Compare two results case by case; exit 1 when NEW regressed against BASE");
  sub->add_option("BASE", args->base, "baseline result JSON (arbench or Google Benchmark)")
      ->required()
      ->option_text("FILE");
  sub->add_option("NEW", args->next, "new result JSON")->required()->option_text("FILE");
  cli::number(*sub, "--alpha", args->alpha, "P", cli::above(0, 0.5),
              "significance level of the Mann-Whitney U test (two-sided; default 0.01)");
  cli::percent(*sub, "--threshold", args->threshold_percent, cli::reals(0, 10000),
               "smallest change of the median that counts, in percent (5 or 5%; default 5)");
  cli::percent(*sub, "--run-threshold", args->run_threshold_percent, cli::reals(0, 10000),
               "smallest change of the geometric mean of all cases that counts for the whole run, when the "
               "whole confidence interval lies beyond it, in percent (default: half of --threshold)");
  cli::choice(*sub, "--format", args->format, {"text", "markdown", "md", "json"}, "output format (default text)");
  sub->add_flag("--allow-different-machines", args->allow_different_machines,
                "compare even when the machine fingerprints differ (ratios then mix machine "
                "and code changes)");
  sub->add_flag("--allow-missing", args->allow_missing,
                "cases of BASE absent from NEW are listed, not failures (default: they fail the gate)");
  sub->add_flag("--strict", args->strict,
                "count a slower case even when NEW recorded an abnormal device state for it (throttling, "
                "clock change, downtrained PCIe link, other processes on the GPU)");
  sub->add_flag("--correctness-only", args->correctness_only,
                "gate on correctness only: failed (and missing) cases fail; slower ones are reported, not "
                "counted (for CPU timings, which drift by 2x between identical runs)");
  sub->footer(
      "Verdicts: slower/faster = p < alpha and the median moved by at least the threshold;\n"
      "same = the median moved less than the threshold; noisy = it moved more, but p >= alpha;\n"
      "failed = NEW has no valid measurement. slower and failed are regressions (exit 1), and so\n"
      "are cases of BASE missing in NEW (--allow-missing). A slower case is not counted when NEW's\n"
      "device state was abnormal (--strict counts it). No case in common: exit 2.\n"
      "Lossy (FP8) variants: an error figure (max_abs_err, rms_rel_err) above BASE's by more than\n"
      "the threshold is a regression too (exit 1), also with --correctness-only.\n"
      "Whole run (10 cases or more): slower when the (1 - alpha) bootstrap interval of the geometric\n"
      "mean of the ratios lies above 1 + run threshold: a regression too (exit 1); faster when below.");
  cli::on_run(*sub, exit_code, args, run_compare);
}

}  // namespace arbench
