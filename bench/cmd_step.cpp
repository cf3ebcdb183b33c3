// `arbench step RESULT.json --model NAME[,NAME] --batch 1,8 --draft 0,3,7`: what the all-reduces
// of one tensor-parallel decode / speculative verify step cost, per variant, projected from a
// measured result. The arithmetic lives in step/step.cpp and step_candidates.cpp
// (host-tested); this file is only the command line. Exit 2 when a size would need extrapolation
// (the missing sizes and the `arbench run` line that measures them go to stderr).
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "arbench/core/models.hpp"
#include "arbench/core/nccl_library_name.hpp"
#include "arbench/variant.hpp"
#include "analysis/compare_report.hpp"
#include "step/step.hpp"
#include "step/step_report.hpp"
#include "cli/files.hpp"
#include "cli/subcommand.hpp"
#include "cli/values.hpp"
#include "commands.hpp"
#include "io/output_paths.hpp"
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

// Whether `variant` is lossy (Variant::lossy()), asked of its host twin (every arbench kernel has
// one; making a GPU variant here could touch the device). No twin or an unknown name: not lossy
// here (a lossy case still shows as one by its error figures: StepOptions::lossy).
bool variant_is_lossy(const std::string& variant) {
  try {
    return Registry::builtin().make(variant, Backend::host)->lossy();
  } catch (const std::exception&) {
    return false;
  }
}

int run_step(StepArgs a) {
  const std::vector<StepModel> models = resolve_models(a);
  // On a GPU result only what runs on GPUs is a choice (the registry says which variants do).
  a.opt.not_on_gpus = [](const std::string& variant) -> std::string {
    if (const std::string lib = split_library(variant).library; !lib.empty())  // --nccl-lib: an engine loads one NCCL
      return "another NCCL library measured beside the run's default (nccl@" + lib +
             "); `arbench compare RESULT --between nccl,nccl@" + lib + "` and `arbench settings` weigh it";
    return Registry::builtin().unavailable_reason(variant, Backend::cuda);
  };
  // Low-precision variants are choices only with their error shown (the registry says which are).
  a.opt.lossy = [known = std::make_shared<std::map<std::string, bool>>()](const std::string& variant) {
    auto it = known->find(variant);
    if (it == known->end()) it = known->emplace(variant, variant_is_lossy(variant)).first;
    return it->second;
  };
  const ReportFormat format = *parse_report_format(a.format);
  check_output_paths({{"--out", a.out}}, {{"RESULT", a.result}});
  const ResultFile result = load_result_file(a.result);
  if (const std::string note = incomplete_note(result); !note.empty()) std::cerr << "arbench step: warning: " << note << "\n";
  std::vector<StepReport> reports;
  bool refused = false;
  for (const StepModel& m : models) {
    reports.push_back(project_step(result, m, a.opt));
    if (!reports.back().missing.empty()) {
      std::cerr << format_missing(reports.back(), "arbench step: ");
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
  return kExitOk;
}

}  // namespace

void add_step_command(CLI::App& app, int& exit_code) {
  const auto [sub, args] = cli::result_subcommand<StepArgs>(
      app, "step", "Communication cost of one tensor-parallel decode / speculative verify step, per variant");
  std::vector<std::string> presets;
  for (const auto& m : kModelPresets) presets.emplace_back(m.name);
  cli::list<std::string>(*sub, "--model", args->models, "NAME", cli::choice_items(presets),
                         "model presets: " + preset_names());
  cli::number(*sub, "--hidden", args->hidden, "H", cli::ints(1, 1 << 20),
              "hidden size (overrides --model's; required without --model)");
  cli::number(*sub, "--layers", args->layers, "L", cli::ints(1, 10000),
              "decoder layers (overrides --model's; required without --model)");
  cli::int_list(*sub, "--batch", args->opt.batch, "B", cli::ints(1, 1 << 20), "sequences per step (default 1)");
  cli::int_list(*sub, "--draft", args->opt.draft, "D", cli::ints(0, 1024),
                "draft tokens verified per sequence (default 0: plain decode)");
  cli::int_list(*sub, "--gpus", args->opt.worlds, "N", cli::ints(1, 1024),
                "tensor-parallel world sizes (default: each in the result)");
  cli::choice(*sub, "--dtype", args->opt.dtype, {"bf16", "fp16", "fp32"},
              "activation dtype of the all-reduces (default bf16)");
  cli::list<std::string>(*sub, "--variants", args->opt.variants, "NAME", cli::name_items(),
                         "only these variants (names or globs)");
  cli::text(*sub, "--baseline", args->opt.baseline, "NAME",
            "variant savings are measured against (default: unfused-nccl, else nccl, unfused-oneshot, oneshot-pull)");
  cli::number(*sub, "--step-ms", args->opt.step_ms, "MS", cli::positive(1e7),
              "a measured engine step in ms (one --batch and --draft): adds the communication share");
  cli::choice(*sub, "--format", args->format, {"text", "markdown", "md", "json"}, "output format (default text)");
  cli::output_file(*sub, "--out", args->out, "write the projection as JSON here (atomically)");
  cli::on_run(*sub, exit_code, args, run_step);
}

}  // namespace arbench
