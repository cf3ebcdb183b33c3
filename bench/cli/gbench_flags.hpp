// Google Benchmark's `--benchmark_*` flags on arbench's command line: which ones arbench honours,
// and a refusal naming what to use instead for the others (each would otherwise be silently
// ignored, or worse: --benchmark_repetitions=3 fills the table with fake aggregate rows).
#pragma once

#include <string>
#include <vector>

namespace arbench::cli {

// The --help footer of `run` and `list`: the flags they honour.
std::string gbench_flags_help(bool list);

struct GbenchFlags {
  std::vector<std::string> flags;  // for benchmark::Initialize, in the order given
  bool console_format = false;     // --benchmark_format=console (the same as --wide)
  std::string out_file;            // --benchmark_out=FILE ("" when not given)
};

// Checks every `--benchmark_*` argument of `args` (the other arguments are not looked at) for the
// subcommand `sub` ("run", "list", ...). Throws UsageError naming the flag, why, and what to use.
GbenchFlags check_gbench_flags(const std::vector<std::string>& args, const std::string& sub);

bool is_gbench_flag(const std::string& arg);

}  // namespace arbench::cli
