// `arbench compare BASE.json NEW.json`: per-case medians, ratio, Mann-Whitney p and a verdict;
// exit 0 = no regression, 1 = regression or missing cases, 2 = unusable input (different
// machines, or no case in common).
// `arbench compare RUN.json --between A,B`: two NCCL libraries of one run as BASE and NEW
// (analysis/compare_between.hpp).
// The logic lives in core/compare.cpp (host-tested); this file is only the command line.
#include <iostream>
#include <memory>

#include "arbench/core/errors.hpp"
#include "cli/subcommand.hpp"
#include "cli/values.hpp"
#include "commands.hpp"
#include "analysis/compare.hpp"
#include "analysis/compare_between.hpp"
#include "analysis/compare_report.hpp"

namespace arbench {
namespace {

struct CompareArgs {
  std::string base, next, format = "text";
  std::vector<std::string> between;  // --between A,B: two NCCL libraries of one run
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
  if (!a.between.empty() && !a.next.empty())
    throw UsageError("--between compares two NCCL libraries of one run: give one RESULT (" + a.base + "), not " +
                     a.next + " too");
  if (a.between.empty() && a.next.empty())
    throw UsageError("NEW is required: arbench compare BASE.json NEW.json, or arbench compare RUN.json --between "
                     "nccl,nccl@<label> for two NCCL libraries of one run");
  if (!a.between.empty() && a.between.size() != 2)
    throw UsageError("--between takes two NCCL libraries of the run, e.g. nccl,nccl@2.29.2; got " +
                     std::to_string(a.between.size()));
  ResultFile base = load_result_file(a.base);
  ResultFile next = a.between.empty() ? load_result_file(a.next) : ResultFile{};
  std::vector<std::string> left_out;
  if (!a.between.empty()) {
    BetweenSplit split = split_between(base, a.between[0], a.between[1]);
    base = std::move(split.base);
    next = std::move(split.next);
    left_out = std::move(split.left_out);
  }
  for (const ResultFile* r : {&base, &next})
    if (const std::string note = incomplete_note(*r); !note.empty()) std::cerr << "arbench compare: warning: " << note << "\n";
  CompareReport rep = compare_results(base, next, opt);
  for (const std::string& v : left_out) rep.notes.push_back("left out, measured by one library only: " + v);
  std::cout << format_compare(rep, *parse_report_format(a.format));
  return compare_exit_code(rep) ? kExitFailure : kExitOk;
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  const auto [sub, args] = cli::subcommand<CompareArgs>(
      app, "compare", "Compare two results case by case; exit 1 when NEW regressed against BASE");
  sub->add_option("BASE", args->base, "baseline result JSON (arbench or Google Benchmark)")
      ->required()
      ->option_text("FILE");
  sub->add_option("NEW", args->next, "new result JSON (none with --between)")->option_text("FILE");
  cli::list<std::string>(
      *sub, "--between", args->between, "LIB",
      [](const std::string& item, std::string& out) {
        out = item;
        return library_selector_problem(item);
      },
      "compare two NCCL libraries measured side by side in one RESULT (`arbench run --nccl-lib`): A,B as nccl "
      "(the run's default) or nccl@<label>, e.g. nccl,nccl@2.29.2; A's cases are BASE, B's are NEW (exit 1: B "
      "slower)");
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
      "mean of the ratios lies above 1 + run threshold: a regression too (exit 1); faster when below.\n"
      "--between A,B: two NCCL libraries of one RESULT (run --nccl-lib), A's cases as BASE, B's as NEW.");
  cli::on_run(*sub, exit_code, args, run_compare);
}

}  // namespace arbench
