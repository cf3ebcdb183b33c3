// Every output file of every subcommand (`--help` shows OUTFILE), probed with what cannot be
// written: an empty name, a folder, a device, a missing folder, a folder nobody may write, an
// input of the same command, and two outputs naming one file. Each is exit 2 before any work
// (was: a folder given to --out failed after the whole sweep and its results were lost; `--out X
// --csv X` replaced the JSON with the CSV; `tune r.json --out r.json` replaced its input).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "help_options.hpp"
#include "per_subcommand.hpp"
#include "probe_bases.hpp"

namespace {

void expect_refused(const std::string& cmd, const std::string& option, const std::string& why) {
  const CliResult r = run_arbench(cmd);
  EXPECT_EQ(r.exit_code, 2) << "arbench " << cmd << "\n" << r.output;
  EXPECT_NE(r.output.find(option), std::string::npos) << "arbench " << cmd << ": name the option\n" << r.output;
  EXPECT_NE(r.output.find(why), std::string::npos) << "arbench " << cmd << ": wanted '" << why << "'\n" << r.output;
  EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran:\n" << r.output;
  EXPECT_EQ(r.output.find("wrote"), std::string::npos) << "something was written:\n" << r.output;
}

std::string scratch_dir() {
  const std::string d = testing::TempDir() + "arbench-outpaths-" + std::to_string(::getpid());
  std::filesystem::create_directories(d);
  return d;
}

void probe_outputs(const std::string& sub) {
  const std::string dir = scratch_dir();
  std::vector<std::string> outputs;
  for (const HelpOption& o : help_options(sub)) {
    if (o.placeholder != "OUTFILE") continue;
    outputs.push_back(o.name());
    const ProbeBase& base = probe_base(sub, o.name());
    expect_refused(base.with(o.name(), "''"), o.name(), "an empty file name");
    expect_refused(base.with(o.name(), dir), o.name(), "a folder");
    expect_refused(base.with(o.name(), dir + "/"), o.name(), "a folder");
    expect_refused(base.with(o.name(), "/dev/null"), o.name(), "not a regular file");
    expect_refused(base.with(o.name(), dir + "/no-such-folder/r.json"), o.name(), "does not exist");
    expect_refused(base.with(o.name(), "/proc/arbench-r.json"), o.name(), "cannot write in /proc");
    if (base.head.find(sample_result()) != std::string::npos)
      expect_refused(base.with(o.name(), sample_result()), o.name(), "file this command reads");
  }
  // Two outputs of one command naming one file (two spellings of it).
  for (std::size_t i = 1; i < outputs.size(); ++i) {
    const ProbeBase& base = probe_base(sub, outputs[i]);
    expect_refused(base.with(outputs[0], dir + "/same.out") + " " + outputs[i] + " " + dir + "/../" +
                       std::filesystem::path(dir).filename().string() + "/same.out",
                   outputs[i], "name the same file");
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/same.out"));
  std::filesystem::remove_all(dir);
}

}  // namespace

[[maybe_unused]] const bool kPerSubcommand =
    per_subcommand("CliOutputPaths", probe_outputs, {"run", "tune", "step", "topo", "compare", "doctor"});

// Google Benchmark's report is an output too.
TEST(CliOutputPaths, BenchmarkOutIsCheckedWithTheOthers) {
  const std::string dir = scratch_dir();
  const std::string base = probe_bases().at("run").with("--out", dir + "/r.json");
  expect_refused(base + " --benchmark_out=" + dir + "/r.json", "--benchmark_out", "name the same file");
  expect_refused(base + " --benchmark_out=" + dir, "--benchmark_out", "a folder");
  std::filesystem::remove_all(dir);
}

// The outputs that can be written are written, atomically, and nothing else is left beside them.
TEST(CliOutputPaths, GoodOutputsLeaveNoProbeFiles) {
  const std::string dir = scratch_dir();
  const CliResult r = run_arbench(probe_bases().at("run").with("--out", dir + "/r.json") + " --csv " + dir + "/r.csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"r.csv", "r.json"}));
  std::filesystem::remove_all(dir);
}
