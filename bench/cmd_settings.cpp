// `arbench settings RESULT.json [MORE.json ...] [--out-dir DIR]`: from measured results to what
// the user sets: arbench's NCCL tuner table, NCCL's example-plugin file and the settings of each
// engine, per world size (docs/engine-settings.md). The logic lives in settings/ (host-tested);
// this file is the command line and the files.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "arbench/core/models.hpp"
#include "commands.hpp"
#include "measure/tuner_plugin.hpp"
#include "results/report.hpp"
#include "settings/settings.hpp"
#include "settings/settings_report.hpp"

namespace arbench {
namespace {

inline constexpr const char* kTableFile = "arbench-nccl-tuner.table";
inline constexpr const char* kExampleFile = "nccl_tuner.conf";
inline constexpr const char* kJsonFile = "settings.json";

struct SettingsArgs {
  std::vector<std::string> results;
  std::string out_dir = "arbench-settings", format = "text", dtype = "bf16", model, plugin;
  std::vector<int> gpus;
  std::optional<int> hidden;
  std::string alpha = "0.01", margin_percent = "5";  // as typed, so a message can quote them
};

// A finite number in (lo, hi] from `text`, the value of `option`.
double parse_number(const char* option, const std::string& text, double lo, double hi, const std::string& meaning) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v <= lo || v > hi)
    throw UsageError(std::string(option) + " " + text + ": " + meaning);
  return v;
}

// Every value the user typed, before any file is read.
std::optional<int> resolve_hidden(const SettingsArgs& a) {
  parse_number("--alpha", a.alpha, 0, 0.5, "a significance level above 0 and at most 0.5, e.g. 0.01");
  parse_number("--margin", a.margin_percent, 0, 99, "a percentage above 0 and below 100, e.g. 5");
  for (std::size_t i = 0; i < a.gpus.size(); ++i) {
    if (a.gpus[i] < 1 || a.gpus[i] > 1 << 16)
      throw UsageError("--gpus " + std::to_string(a.gpus[i]) + ": a GPU count of 1 or more");
    for (std::size_t j = 0; j < i; ++j)
      if (a.gpus[j] == a.gpus[i]) throw UsageError("--gpus lists " + std::to_string(a.gpus[i]) + " twice");
  }
  if (a.hidden && (*a.hidden < 1 || *a.hidden > 1 << 20))
    throw UsageError("--hidden " + std::to_string(*a.hidden) + ": a hidden size of 1 or more");
  if (a.out_dir.empty()) throw UsageError("--out-dir is empty; name a folder for the settings files");
  for (const std::string& r : a.results)
    if (r.empty()) throw UsageError("a RESULT argument is empty; name a result JSON written by `arbench run`");
  if (a.model.empty()) return a.hidden;
  const ModelPreset* p = find_model_preset(a.model);
  if (!p) {
    std::string names;
    for (const auto& m : kModelPresets) names += (names.empty() ? "" : ", ") + std::string(m.name);
    throw UsageError("unknown --model '" + a.model + "'; presets: " + names + " (or give --hidden)");
  }
  return p->hidden;
}

// The folder, created when missing; UsageError when it is not a writable folder.
std::filesystem::path prepare_out_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p = fs::absolute(dir, ec);
  if (fs::exists(p, ec) && !fs::is_directory(p, ec))
    throw UsageError("--out-dir " + dir + ": exists and is not a folder; name a folder for the settings files");
  fs::create_directories(p, ec);
  if (ec) throw UsageError("--out-dir " + dir + ": cannot create it (" + ec.message() + ")");
  check_writable((p / kJsonFile).string(), "--out-dir");
  return p;
}

int run_settings(const SettingsArgs& a) {
  const std::optional<int> hidden = resolve_hidden(a);
  const std::filesystem::path dir = prepare_out_dir(a.out_dir);
  SettingsOptions opt;
  opt.worlds = a.gpus;
  opt.verdict.alpha = std::strtod(a.alpha.c_str(), nullptr);
  opt.verdict.threshold = std::strtod(a.margin_percent.c_str(), nullptr) / 100;
  opt.paths.table = (dir / kTableFile).string();
  opt.paths.example_conf = (dir / kExampleFile).string();
  const TunerPluginPath plugin = find_tuner_plugin();
  opt.paths.plugin = a.plugin.empty() ? plugin.path : std::filesystem::absolute(a.plugin).string();
  if (a.plugin.empty() && !plugin.found)
    std::cerr << "arbench settings: " << kTunerPluginFile << " not found (looked at " << plugin.looked
              << "); the lines below name where `cmake --install` puts it: build the target arbench_nccl_tuner "
                 "or give --plugin PATH\n";

  const auto measured = load_measured(a.results, a.dtype, hidden);
  const SettingsReport rep = make_settings(*measured, opt);
  const nlohmann::json j = settings_json(rep);
  if (!rep.table_text.empty()) write_file_atomically(opt.paths.table, rep.table_text);
  if (!rep.example_conf_text.empty()) write_file_atomically(opt.paths.example_conf, rep.example_conf_text);
  write_file_atomically((dir / kJsonFile).string(), j.dump(2) + "\n");
  if (a.format == "json") {
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << format_settings(rep);
    std::cout << "\nwritten: " << (dir / kJsonFile).string() << (rep.table_text.empty() ? "" : ", " + opt.paths.table)
              << (rep.example_conf_text.empty() ? "" : ", " + opt.paths.example_conf) << "\n";
  }
  std::cout << std::flush;
  return kExitOk;
}

}  // namespace

void add_settings_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SettingsArgs>();
  CLI::App* sub = app.add_subcommand(
      "settings", "What to set in NCCL and your engine per GPU count, from measured results, with the evidence");
  sub->add_option("RESULT", args->results,
                  "results of one machine (arbench run --backend cuda); later ones replace same-name cases")
      ->required();
  sub->add_option("--out-dir", args->out_dir,
                  "folder for the tuner table, the NCCL example file and settings.json (created if missing)")
      ->capture_default_str();
  sub->add_option("--gpus", args->gpus, "world sizes, comma-separated (default: each in the results)")->delimiter(',');
  sub->add_option("--dtype", args->dtype, "dtype of the cases to use")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32"}))
      ->capture_default_str();
  auto* hidden = sub->add_option_function<int>(
      "--hidden", [args](const int& v) { args->hidden = v; },
      "hidden size of the fused family to use (default: the only one measured)");
  sub->add_option("--model", args->model, "a model preset, for its hidden size (as `arbench step`)")->excludes(hidden);
  sub->add_option("--alpha", args->alpha, "significance level: a choice must beat the other with Mann-Whitney p < alpha")
      ->capture_default_str();
  sub->add_option("--margin", args->margin_percent,
                  "a choice must also be faster by at least this many percent (5 or 5%)")
      ->transform(strip_percent)
      ->capture_default_str();
  sub->add_option("--plugin", args->plugin,
                  "libarbench-nccl-tuner.so's path in the paste lines (default: next to arbench, or ../lib)");
  sub->add_option("--format", args->format, "text or json (json: the settings.json document)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  sub->callback([args, &exit_code] {
    try {
      exit_code = run_settings(*args);
    } catch (const Error& e) {
      std::cerr << "arbench settings: " << e.what() << "\n";
      exit_code = e.exit_code();
    }
  });
}

}  // namespace arbench
