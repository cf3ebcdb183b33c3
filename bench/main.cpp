// arbench: all-reduce microbenchmarks for PCIe multi-GPU boxes. Subcommands: run (default),
// list, compare, tune, topo, step. `--benchmark_*` flags go to Google Benchmark.
#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace arbench;
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  // Google Benchmark's own flags go to it; everything else to CLI11.
  std::vector<char*> gbench_args = {argv[0]}, args = {argv[0]};
  for (int i = 1; i < argc; ++i)
    (std::strncmp(argv[i], "--benchmark_", 12) == 0 ? gbench_args : args).push_back(argv[i]);
  // `run` is the default subcommand: `arbench --gpus 2` means `arbench run --gpus 2`.
  static char run_word[] = "run";
  const std::vector<std::string> subcommands = {"run", "list", "compare", "tune", "topo", "step"};
  const bool wants_help = args.size() > 1 && (std::strcmp(args[1], "-h") == 0 || std::strcmp(args[1], "--help") == 0 ||
                                               std::strcmp(args[1], "--version") == 0);
  bool has_sub = false;
  for (std::size_t i = 1; i < args.size() && !has_sub; ++i)
    for (const auto& s : subcommands) has_sub = has_sub || s == args[i];
  if (!wants_help && !has_sub) {
    if (args.size() > 1 && args[1][0] != '-') {
      std::cerr << "arbench: unknown subcommand '" << args[1] << "'; subcommands: run (default), list, compare, "
                   "tune, topo, step. See arbench --help\n";
      return kExitUsage;
    }
    args.insert(args.begin() + 1, run_word);
  }

  int gargc = int(gbench_args.size());
  benchmark::Initialize(&gargc, gbench_args.data());
  if (benchmark::ReportUnrecognizedArguments(gargc, gbench_args.data())) return kExitUsage;

  CLI::App app{"arbench: which all-reduce is fastest on this PCIe multi-GPU box, at each size and GPU count"};
  app.set_version_flag("--version", std::string("arbench ") + ARBENCH_VERSION_STRING);
  app.require_subcommand(1);
  int exit_code = kExitOk;
  add_run_commands(app, exit_code, command_line);
  add_compare_command(app, exit_code);
  add_tune_command(app, exit_code);
  add_topo_command(app, exit_code);
  add_step_command(app, exit_code);
  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  } catch (const Error& e) {
    std::cerr << "arbench: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "arbench: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return exit_code;
}
