// The arbench subcommands. Each lives in its own bench/cmd_<name>.cpp and registers itself on
// the CLI11 app; the callback it installs stores its exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "arbench/world.hpp"

namespace arbench {

// `run` (the default) and `list`; `command_line` is recorded in the results' provenance.
// `world`: the processes of the run (several under mpirun; docs/multi-process.md).
// `gbench_out`: --benchmark_out=FILE, checked with --out and --csv before the sweep.
void add_run_commands(CLI::App& app, int& exit_code, const std::string& command_line, World& world,
                      const std::string& gbench_out);
void add_compare_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
void add_topo_command(CLI::App& app, int& exit_code, World& world);
void add_step_command(CLI::App& app, int& exit_code);
void add_settings_command(CLI::App& app, int& exit_code);
void add_doctor_command(CLI::App& app, int& exit_code);

}  // namespace arbench
