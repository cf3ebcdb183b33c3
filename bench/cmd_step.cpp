// `arbench step RESULT.json --model NAME[,NAME] --batch 1,8 --draft 0,3,7`: what the all-reduces
// of one tensor-parallel decode / speculative verify step cost, per variant, projected from a
// measured result. The arithmetic lives in analysis/step.cpp and step_candidates.cpp
// (host-tested); this file is only the command line. Exit 2 when a size would need extrapolation
// (the missing sizes and the `arbench run` line that measures them go to stderr).
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "arbench/core/models.hpp"
#include "arbench/variant.hpp"
#include "analysis/compare_report.hpp"
#include "analysis/step.hpp"
#include "analysis/step_report.hpp"
#include "commands.hpp"
#include "results/report.hpp"

namespace arbench {
namespace {

struct StepArgs {
  std::string result, out, format = "text";
  std::vector<std::string> models;
  std::optional<int> hidden, layers;  // given on the command line
  StepOptions opt;
};

std::string preset_names() {
  std::string names;
  for (const auto& m : kModelPresets) names += (names.empty() ? "" : ", ") + std::string(m.name);
  return names;
}

// The models to project, presets with --hidden/--layers applied; checked before any file is read.
std::vector<StepModel> resolve_models(const StepArgs& a) {
  if (a.models.empty() && !a.hidden && !a.layers)
    throw UsageError("name a model with --model (" + preset_names() + ") or give --hidden and --layers");
  if (a.models.size() > 1 && (a.hidden || a.layers))
    throw UsageError("--hidden/--layers override one model; with " + std::to_string(a.models.size()) +
                     " models given to --model, run them one at a time");
  if (a.models.empty()) {
    if (!a.hidden || !a.layers)
      throw UsageError(std::string("without --model, give both --hidden N and --layers N (") +
                       (a.hidden ? "--layers" : "--hidden") + " is missing)");
    return {StepModel{"custom", *a.hidden, *a.layers}};
  }
  std::vector<StepModel> out;
  for (const auto& name : a.models) {
    const ModelPreset* p = find_model_preset(name);
    if (!p) throw UsageError("unknown --model '" + name + "'; presets: " + preset_names() +
                             " (or give --hidden and --layers)");
    StepModel m{std::string(p->name), p->hidden, p->layers};
    if (a.hidden) m.hidden = *a.hidden;
    if (a.layers) m.layers = *a.layers;
    if (a.hidden || a.layers) m.name += " (overridden: hidden " + std::to_string(m.hidden) + ", layers " +
                                        std::to_string(m.layers) + ")";
    out.push_back(m);
  }
  return out;
}

int run_step(StepArgs a) {
  const std::vector<StepModel> models = resolve_models(a);
  // On a GPU result only what runs on GPUs is a choice (the registry says which variants do).
  a.opt.not_on_gpus = [](const std::string& variant) {
    return Registry::builtin().unavailable_reason(variant, Backend::cuda);
  };
  const ReportFormat format = *parse_report_format(a.format);
  const ResultFile result = load_result_file(a.result);
  std::vector<StepReport> reports;
  bool refused = false;
  for (const StepModel& m : models) {
    reports.push_back(project_step(result, m, a.opt));
    if (!reports.back().missing.empty()) {
      std::cerr << "arbench step: " << format_missing(reports.back());
      refused = true;
    }
  }
  if (refused) return kExitUsage;
  if (!a.out.empty()) write_file_atomically(a.out, step_file_json(reports).dump(2) + "\n");
  if (format == ReportFormat::json) {
    std::cout << step_file_json(reports).dump(2) << "\n";
  } else {
    std::cout << format_step_header(reports.front(), format);
    for (const StepReport& r : reports) std::cout << format_step(r, format);
  }
  // JSON on stdout stays one document; the note then goes to stderr.
  if (!a.out.empty()) (format == ReportFormat::json ? std::cerr : std::cout) << "\nwritten to " << a.out << "\n";
  std::cout << std::flush;
  return kExitOk;
}

}  // namespace

void add_step_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<StepArgs>();
  CLI::App* sub = app.add_subcommand(
      "step", "Communication cost of one tensor-parallel decode / speculative verify step, per variant");
  sub->add_option("RESULT", args->result, "result JSON written by `arbench run`")->required();
  sub->add_option("--model", args->models, "model presets, comma-separated: " + preset_names())->delimiter(',');
  sub->add_option_function<int>(
      "--hidden", [args](const int& v) { args->hidden = v; }, "hidden size (overrides --model's; required without --model)");
  sub->add_option_function<int>(
      "--layers", [args](const int& v) { args->layers = v; },
      "decoder layers (overrides --model's; required without --model)");
  sub->add_option("--batch", args->opt.batch, "sequences per step, comma-separated")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--draft", args->opt.draft,
                  "draft tokens verified per sequence, comma-separated (0: plain decode)")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--gpus", args->opt.worlds, "tensor-parallel world sizes (default: each in the result)")
      ->delimiter(',');
  sub->add_option("--dtype", args->opt.dtype, "activation dtype of the all-reduces")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32"}))
      ->capture_default_str();
  sub->add_option("--variants", args->opt.variants, "only these variants (names or globs, comma-separated)")
      ->delimiter(',');
  sub->add_option("--baseline", args->opt.baseline,
                  "variant savings are measured against (default: unfused-nccl, else nccl, unfused-oneshot, "
                  "oneshot-pull)");
  sub->add_option_function<double>(
      "--step-ms", [args](const double& v) { args->opt.step_ms = v; },
      "a measured engine step in ms (one --batch and --draft): adds the communication share");
  sub->add_option("--format", args->format, "text, markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "md", "json"}))
      ->capture_default_str();
  sub->add_option("--out", args->out, "write the projection as JSON here (atomically)");
  sub->callback([args, &exit_code] {
    try {
      exit_code = run_step(*args);
    } catch (const Error& e) {
      std::cerr << "arbench step: " << e.what() << "\n";
      exit_code = e.exit_code();
    }
  });
}

}  // namespace arbench
