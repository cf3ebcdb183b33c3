// `arbench settings RESULT.json [MORE.json ...] [--out-dir DIR] [--engine NAME=VER,...] [--nccl X.Y.Z]
// [--python PATH]`: from measured results to what
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
#include "cli/subcommand.hpp"
#include "cli/values.hpp"
#include "commands.hpp"
#include "io/output_paths.hpp"
#include "measure/nccl/tuner_plugin.hpp"
#include "results/report.hpp"
#include "settings/catalogue/python_probe.hpp"
#include "settings/settings.hpp"
#include "settings/settings_report.hpp"
#include "text/wrap.hpp"

namespace arbench {
namespace {

inline constexpr const char* kTableFile = "arbench-nccl-tuner.table";
inline constexpr const char* kExampleFile = "nccl_tuner.conf";
inline constexpr const char* kJsonFile = "settings.json";

struct SettingsArgs {
  std::vector<std::string> results;
  std::string out_dir = "arbench-settings", format = "text", dtype = "bf16", model, plugin;
  std::vector<std::string> engines;  // NAME=VERSION, each checked as parsed
  std::string nccl, python;
  double python_timeout_s = 60;
  std::vector<int> gpus;
  std::optional<int> hidden;
  int hidden_typed = 0;  // --hidden as parsed (hidden is set from it when given)
  double alpha = 0.01, margin_percent = 5;
};

// Every value the user typed, before any file is read.
std::optional<int> resolve_hidden(const SettingsArgs& a) {
  // --alpha, --margin, --gpus and --hidden are checked as they are parsed (bench/cli).
  if (a.out_dir.empty()) throw UsageError("--out-dir is empty; name a folder for the settings files");
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    if (a.results[i].empty()) throw UsageError("a RESULT argument is empty; name a result JSON written by `arbench run`");
    std::error_code ec;  // the same file twice (by any path) would replace its own cases
    for (std::size_t k = 0; k < i; ++k)
      if (std::filesystem::weakly_canonical(a.results[k], ec) == std::filesystem::weakly_canonical(a.results[i], ec))
        throw UsageError("RESULT " + a.results[i] + " is given twice (as " + a.results[k] + "); give each result once");
  }
  if (a.model.empty()) return a.hidden;
  const ModelPreset* p = find_model_preset(a.model);
  if (!p) {
    std::string names;
    for (const auto& m : kModelPresets) names += (names.empty() ? "" : ", ") + std::string(m.name);
    throw UsageError("unknown --model '" + a.model + "'; presets: " + names + " (or give --hidden)");
  }
  return p->hidden;
}

// The versions the user runs: --python's answer, then --engine and --nccl over it (what is typed
// wins). Every typed value is checked before the interpreter runs.
StackVersions resolve_stack(const SettingsArgs& a) {
  StackVersions typed;
  for (const std::string& item : a.engines) {
    std::string name;
    Version v;
    if (const std::string why = parse_engine_item(item, name, v); !why.empty()) throw UsageError("--engine: " + why);
    if (typed.engines.count(name))
      throw UsageError("--engine: " + name + " is given twice ('" + item + "'); give each engine once");
    typed.engines[name] = v;
  }
  if (!a.nccl.empty()) {
    if (const std::string why = nccl_version_problem(a.nccl); !why.empty()) throw UsageError("--nccl: " + why);
    typed.nccl = parse_version(a.nccl);
  }
  if (!a.engines.empty() || !a.nccl.empty()) typed.source = "--engine/--nccl";
  if (a.python.empty()) return typed;
  const PythonStack py = probe_python(a.python, a.python_timeout_s);
  StackVersions s = py.stack;
  for (const auto& [name, v] : typed.engines) s.engines[name] = v;
  if (typed.nccl) s.nccl = typed.nccl;
  if (!typed.source.empty()) s.source += " and " + typed.source;
  std::cerr << "arbench settings: " << s.source << " (Python " << (py.python.empty() ? "?" : py.python) << "):";
  for (const char* n : kStackEngines)
    if (const auto v = s.engine(n)) std::cerr << " " << n << " " << v->text();
  std::cerr << (s.engines.empty() ? " none of vllm, sglang, tensorrt_llm, flashinfer, torch installed" : "")
            << (s.nccl ? ", NCCL " + s.nccl->text() : std::string()) << "\n";
  for (const std::string& n : py.notes)
    if (!(typed.nccl && n.rfind("the NCCL torch loads", 0) == 0)) std::cerr << "arbench settings: " << n << "\n";
  return s;
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
  check_output_paths({{"--out-dir", (p / kJsonFile).string()}});
  return p;
}

int run_settings(const SettingsArgs& a) {
  const std::optional<int> hidden = resolve_hidden(a);
  SettingsOptions opt;
  opt.stack = resolve_stack(a);  // before any file is written: a wrong --python stops here
  const std::filesystem::path dir = prepare_out_dir(a.out_dir);
  opt.worlds = a.gpus;
  opt.verdict.alpha = a.alpha;
  opt.verdict.threshold = a.margin_percent / 100;
  opt.paths.table = (dir / kTableFile).string();
  opt.paths.example_conf = (dir / kExampleFile).string();
  const TunerPluginPath plugin = find_tuner_plugin();
  opt.paths.plugin = a.plugin.empty() ? plugin.path : std::filesystem::absolute(a.plugin).string();
  if (a.plugin.empty() && !plugin.found)
    std::cerr << cli::error_text("arbench settings: ", std::string(kTunerPluginFile) + " not found (looked at " +
                                                           plugin.looked + "); the lines below name " + plugin.path +
                                                           ", where " + plugin.put_by + " puts it; or give --plugin PATH");

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
    std::cout << "\n"
              << fit_line("written: " + (dir / kJsonFile).string() +
                              (rep.table_text.empty() ? "" : ", " + opt.paths.table) +
                              (rep.example_conf_text.empty() ? "" : ", " + opt.paths.example_conf),
                          9);
  }
  return kExitOk;
}

}  // namespace

void add_settings_command(CLI::App& app, int& exit_code) {
  const auto [sub, args] = cli::subcommand<SettingsArgs>(
      app, "settings", "What to set in NCCL and your engine per GPU count, from measured results");
  sub->add_option("RESULT", args->results,
                  "results of one machine (arbench run --backend cuda); later ones replace same-name cases")
      ->required()
      ->option_text("FILE");
  cli::text(*sub, "--out-dir", args->out_dir, "OUTDIR",
            "folder for the tuner table, the NCCL example file and settings.json (created if missing; default "
            "arbench-settings)");
  cli::int_list(*sub, "--gpus", args->gpus, "N", cli::ints(1, 1 << 16),
                "world sizes, comma-separated (default: each in the results)");
  cli::choice(*sub, "--dtype", args->dtype, {"bf16", "fp16", "fp32"}, "dtype of the cases to use (default bf16)");
  auto* hidden = cli::number(*sub, "--hidden", args->hidden_typed, "N", cli::ints(1, 1 << 20),
                             "hidden size of the fused family to use (default: the only one measured)");
  cli::text(*sub, "--model", args->model, "NAME", "a model preset, for its hidden size (as `arbench step`)")
      ->excludes(hidden);
  cli::number(*sub, "--alpha", args->alpha, "P", cli::above(0, 0.5),
              "significance level: a choice must beat the other with Mann-Whitney p < alpha (default 0.01)");
  cli::percent(*sub, "--margin", args->margin_percent, cli::above(0, 99),
               "a choice must also be faster by at least this many percent (5 or 5%; default 5)");
  sub->add_option("--plugin", args->plugin,
                  "libarbench-nccl-tuner.so's path in the paste lines (default: next to arbench, or ../lib)")
      ->check(CLI::Validator(
          [](std::string& p) -> std::string {
            // NCCL reports a plugin it cannot dlopen only at INFO: a path that cannot be a shared
            // library would make every paste line silently do nothing.
            const std::string name = std::filesystem::path(p).filename().string();
            if (name.size() > 3 && (name.ends_with(".so") || name.find(".so.") != std::string::npos)) return {};
            return "'" + p + "' does not name a shared library (libarbench-nccl-tuner.so)";
          },
          "", ""))
      ->option_text("SOFILE");
  cli::list<std::string>(
      *sub, "--engine", args->engines, "ENGINE_VER",
      [](const std::string& item, std::string& out) {
        std::string name;
        Version v;
        out = item;
        return parse_engine_item(item, name, v);
      },
      "the engine versions you run, each NAME=VERSION (vllm, sglang, tensorrt_llm, flashinfer, torch), e.g. "
      "vllm=0.11.0,torch=2.9.0: each line then holds for them");
  sub->add_option("--nccl", args->nccl,
                  "the NCCL version your engine loads (python -c 'import torch; print(torch.cuda.nccl.version())')")
      ->check(CLI::Validator([](std::string& s) { return nccl_version_problem(s); }, "", ""))
      ->option_text("X.Y.Z");
  cli::text(*sub, "--python", args->python, "PYTHON",
            "the Python interpreter of the engine's environment: arbench asks it for the versions of vllm, sglang, "
            "tensorrt_llm, flashinfer, torch and torch's NCCL (--engine/--nccl override what it says)");
  cli::number(*sub, "--python-timeout", args->python_timeout_s, "S", cli::above(0, 600),
              "how long --python's interpreter may take to answer (importing torch; default 60)");
  cli::choice(*sub, "--format", args->format, {"text", "json"},
              "text or json (json: the settings.json document; default text)");
  cli::on_run(*sub, exit_code, args, [hidden](SettingsArgs& a) {
    if (hidden->count() > 0) a.hidden = a.hidden_typed;
    return run_settings(a);
  });
}

}  // namespace arbench
