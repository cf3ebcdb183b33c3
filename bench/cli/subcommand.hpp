// The frame the report subcommands (compare, tune, step, settings) share: a subcommand whose
// arguments outlive the function that declares them, and a callback that turns an arbench Error
// into "arbench NAME: what" on stderr and the error's exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "arbench/core/errors.hpp"
#include "cli/parse_errors.hpp"

namespace arbench::cli {

// Adds the subcommand `name`; its Args are held by a shared_ptr because CLI11 fills them while
// parsing and the callback reads them after, when the declaring function has returned.
template <class Args>
std::pair<CLI::App*, std::shared_ptr<Args>> subcommand(CLI::App& app, const std::string& name,
                                                        const std::string& description) {
  return {app.add_subcommand(name, description), std::make_shared<Args>()};
}

// A subcommand that reads one run's result (tune, step): `subcommand`, with the required RESULT
// positional, a result JSON written by `arbench run`, read into args->result.
template <class Args>
std::pair<CLI::App*, std::shared_ptr<Args>> result_subcommand(CLI::App& app, const std::string& name,
                                                               const std::string& description) {
  auto [sub, args] = subcommand<Args>(app, name, description);
  sub->add_option("RESULT", args->result, "result JSON written by `arbench run`")->required()->option_text("FILE");
  return {sub, args};
}

// Installs `run(*args)` (returns the exit code) as the subcommand's callback; what the command
// wrote to stdout is flushed when it returns, before anything else is written.
template <class Args, class Run>
void on_run(CLI::App& sub, int& exit_code, std::shared_ptr<Args> args, Run run) {
  sub.callback([&exit_code, args, run, name = sub.get_name()] {
    try {
      exit_code = run(*args);
      std::cout << std::flush;
    } catch (const Error& e) {
      std::cerr << error_text("arbench " + name + ": ", e.what());
      exit_code = e.exit_code();
    }
  });
}

}  // namespace arbench::cli
