#include "cli/gbench_flags.hpp"

#include <map>

#include "arbench/core/errors.hpp"

namespace arbench::cli {
namespace {

// Flags of Google Benchmark that arbench refuses, and what to use instead. A flag not listed
// here and not honoured gets the general message.
const std::map<std::string, std::string>& refused() {
  static const std::map<std::string, std::string> m = {
      {"benchmark_repetitions",
       "arbench runs each case once and takes its samples itself, so Google Benchmark's repetitions would only "
       "add aggregate rows that are not measurements; for more samples use --samples N, or adaptive sampling "
       "(--max-noise, --max-samples)"},
      {"benchmark_min_time",
       "arbench times each case by its samples, not by Google Benchmark's iterations; use --samples N, or "
       "--min-time S with adaptive sampling"},
      {"benchmark_min_warmup_time", "use --warmup N (untimed ops before the first check)"},
      {"benchmark_list_tests", "use `arbench list` (the cases, one a line, and why any is skipped)"},
      {"benchmark_dry_run", "use `arbench list` (the cases a run would execute)"},
      {"benchmark_enable_random_interleaving",
       "arbench runs the cases in sweep order (the fused family's unfused variants before the fused ones)"},
      {"benchmark_report_aggregates_only", "arbench has no aggregates: it runs each case once"},
      {"benchmark_display_aggregates_only", "arbench has no aggregates: it runs each case once"},
      {"benchmark_time_unit", "arbench reports microseconds in its table, JSON and CSV"},
      {"benchmark_counters_tabular", "--wide already prints every counter as a column"},
      {"benchmark_color", "--wide colours its table on a terminal, never in a file or a pipe"},
      {"benchmark_perf_counters", "arbench does not read CPU performance counters"},
  };
  return m;
}

const char* kHonoured = "--benchmark_filter=REGEX, --benchmark_format=console, --benchmark_out=FILE, "
                        "--benchmark_out_format=json|console|csv, --benchmark_context=KEY=VALUE";

}  // namespace

bool is_gbench_flag(const std::string& arg) { return arg.rfind("--benchmark_", 0) == 0; }

std::string gbench_flags_help(bool list) {
  if (list)
    return "Google Benchmark's flags: --benchmark_filter=REGEX selects cases by name (a leading '-' negates); "
           "the other --benchmark_* flags are for `arbench run`.";
  return std::string("Google Benchmark's flags that arbench honours: ") + kHonoured +
         ". --benchmark_filter=REGEX selects cases by name (a leading '-' negates); --benchmark_format=console is "
         "--wide; --benchmark_out writes Google Benchmark's own report besides --out. Any other --benchmark_* "
         "flag is refused, with what to use instead.";
}

GbenchFlags check_gbench_flags(const std::vector<std::string>& args, const std::string& sub) {
  GbenchFlags g;
  for (const std::string& arg : args) {
    if (!is_gbench_flag(arg)) continue;
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::string value = eq == std::string::npos ? std::string() : arg.substr(eq + 1);
    if (sub != "run" && !(sub == "list" && name == "benchmark_filter"))
      throw UsageError(arg + ": Google Benchmark's flags apply to `arbench run`" +
                       std::string(sub == "list" ? " (`list` takes --benchmark_filter only)" : " and `arbench list`") +
                       ", not to `arbench " + sub + "`; drop it");
    if (const auto it = refused().find(name); it != refused().end()) {
      if (name == "benchmark_repetitions" && value == "1") continue;  // what arbench does anyway
      throw UsageError(arg + ": not supported by arbench: " + it->second);
    }
    if (name != "benchmark_filter" && name != "benchmark_format" && name != "benchmark_out" &&
        name != "benchmark_out_format" && name != "benchmark_context")
      throw UsageError(arg + ": not a flag arbench passes to Google Benchmark; it honours " + kHonoured);
    if (eq == std::string::npos || value.empty())
      throw UsageError(arg + ": give its value after '=', e.g. --" + name + "=" +
                       (name == "benchmark_out" ? "gbench.json" : name == "benchmark_filter" ? "gpus:8" :
                        name == "benchmark_context" ? "host=box1" : "console"));
    if (name == "benchmark_format") {
      if (value != "console")
        throw UsageError(arg + ": arbench writes JSON with --out FILE.json and CSV with --csv FILE; "
                               "--benchmark_format=console (or --wide) prints Google Benchmark's wide table");
      g.console_format = true;
      continue;
    }
    if (name == "benchmark_out_format" && value != "json" && value != "console" && value != "csv")
      throw UsageError(arg + ": '" + value + "' is not one of json, console or csv");
    if (name == "benchmark_context" && value.find('=') == std::string::npos)
      throw UsageError(arg + ": write --benchmark_context=KEY=VALUE");
    if (name == "benchmark_out") g.out_file = value;
    g.flags.push_back(arg);
  }
  for (const std::string& f : g.flags)
    if (f.rfind("--benchmark_out_format=", 0) == 0 && g.out_file.empty())
      throw UsageError(f + ": the format of --benchmark_out=FILE, which is not given; add it or drop this flag");
  return g;
}

}  // namespace arbench::cli
