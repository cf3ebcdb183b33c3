// arbench: all-reduce microbenchmarks for PCIe multi-GPU boxes. Subcommands: run (default),
// list, compare, tune, topo, step. `--benchmark_*` flags go to Google Benchmark. Under mpirun /
// srun every process is one rank of one run (docs/multi-process.md); process 0 prints.
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "commands.hpp"
#include "mpi/start_world.hpp"

int main(int argc, char** argv) {
  using namespace arbench;
  std::unique_ptr<World> world;
  try {
    world = start_world(&argc, &argv, detect_launch());
  } catch (const Error& e) {
    std::cerr << "arbench: error: " << e.what() << "\n";
    return e.exit_code();
  }
  const bool lead = world->rank() == 0;
  std::ostream quiet(nullptr);  // what processes other than 0 print instead of the console
  std::ostream& out = lead ? std::cout : quiet;
  std::ostream& err = lead ? std::cerr : quiet;

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  // Google Benchmark's own flags go to it; everything else to CLI11. Its console format is
  // --wide; arbench writes JSON and CSV itself (--out, --csv), so the other formats are refused.
  static char wide_flag[] = "--wide";
  std::vector<char*> gbench_args = {argv[0]}, args = {argv[0]};
  bool console_format = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0) {
      const std::string format = argv[i] + 19;
      if (format != "console") {
        std::cerr << "arbench: error: --benchmark_format=" << format
                  << ": arbench writes JSON with --out FILE.json and CSV with --csv FILE; "
                     "--benchmark_format=console (or --wide) prints Google Benchmark's wide table\n";
        return kExitUsage;
      }
      console_format = true;
      continue;
    }
    (std::strncmp(argv[i], "--benchmark_", 12) == 0 ? gbench_args : args).push_back(argv[i]);
  }
  // `run` is the default subcommand: `arbench --gpus 2` means `arbench run --gpus 2`.
  static char run_word[] = "run";
  const std::vector<std::string> subcommands = {"run", "list", "compare", "tune", "topo", "step", "settings"};
  const bool wants_help = args.size() > 1 && (std::strcmp(args[1], "-h") == 0 || std::strcmp(args[1], "--help") == 0 ||
                                               std::strcmp(args[1], "--version") == 0);
  std::string sub;
  for (std::size_t i = 1; i < args.size() && sub.empty(); ++i)
    for (const auto& s : subcommands)
      if (s == args[i]) sub = s;
  const bool has_sub = !sub.empty();
  if (!wants_help && !has_sub) {
    if (args.size() > 1 && args[1][0] != '-') {
      err << "arbench: unknown subcommand '" << args[1] << "'; subcommands: run (default), list, compare, "
                   "tune, topo, step, settings. See arbench --help\n";
      return kExitUsage;
    }
    args.insert(args.begin() + 1, run_word);
    sub = "run";
  }
  if (world->multi_process() && !wants_help && sub != "run" && sub != "list" && sub != "topo") {
    err << "arbench: error: `arbench " << sub << "` reads and writes files in one process; start it without "
        << world->layout().launcher << " (only run, list and topo span processes)\n";
    return kExitUsage;
  }
  if (console_format && (!has_sub || sub == "run")) args.push_back(wide_flag);  // other subcommands ignore it

  int gargc = int(gbench_args.size());
  benchmark::Initialize(&gargc, gbench_args.data());
  if (gargc > 1 && (!lead || benchmark::ReportUnrecognizedArguments(gargc, gbench_args.data()))) return kExitUsage;

  CLI::App app{"arbench: which all-reduce is fastest on this PCIe multi-GPU box, at each size and GPU count"};
  app.set_version_flag("--version", std::string("arbench ") + ARBENCH_VERSION_STRING +
                                        (built_with_mpi() ? " (multi-process mode: MPI)"
                                                          : " (single-process build: no MPI)"));
  app.require_subcommand(1);
  int exit_code = kExitOk;
  add_run_commands(app, exit_code, command_line, *world);
  add_compare_command(app, exit_code);
  add_tune_command(app, exit_code);
  add_topo_command(app, exit_code, *world);
  add_step_command(app, exit_code);
  add_settings_command(app, exit_code);
  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    app.exit(e, out, err);
    return kExitUsage;
  } catch (const Error& e) {
    // Raised by this process alone while its peers may wait for it: end them all.
    if (world->multi_process() && dynamic_cast<const AgreedError*>(&e) == nullptr)
      world->abort(e.exit_code(), std::string("error: ") + e.what());
    err << "arbench: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    if (world->multi_process()) world->abort(kExitFailure, std::string("internal error: ") + e.what());
    std::cerr << "arbench: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return exit_code;
}
