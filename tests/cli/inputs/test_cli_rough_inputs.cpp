// The rough inputs of issue 41, as a new user typed them: each is exit 2 with one clear line
// (docs/user-guide.md, "How values are checked"), before any work.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "probe_bases.hpp"
#include "tests/cli/cli_util.hpp"

namespace {

const std::string kHost = "run --backend host --variants reference --gpus 2 -b 1K -e 1K --warmup 0 --pipelined-ops 0 ";

void expect_refused(const std::string& args, const std::string& message) {
  const CliResult r = run_arbench(args);
  EXPECT_EQ(r.exit_code, 2) << "arbench " << args << "\n" << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << "arbench " << args << "\nwanted: " << message << "\ngot:\n"
                                                       << r.output;
  EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran:\n" << r.output;
  EXPECT_EQ(r.output.find("At Most"), std::string::npos) << "CLI11's own words:\n" << r.output;
}

}  // namespace

// "5%%" was read as 5: one percent sign at most.
TEST(CliRoughInputs, PercentWithTwoPercentSigns) {
  const std::string s = sample_result();
  expect_refused(kHost + "--max-noise 5%%", "--max-noise: '5%%' is not a percentage; give a number, e.g. 5 or 5%");
  expect_refused("compare " + s + " " + s + " --threshold 5%%",
                 "--threshold: '5%%' is not a percentage; give a number, e.g. 5 or 5%");
  EXPECT_EQ(run_arbench("compare " + s + " " + s + " --threshold '5 %'").exit_code, 0);
}

// One rule for numbers: --timeout 0x10 was taken as 16 s while --seed 0x10 was refused.
TEST(CliRoughInputs, HexIsRefusedAlike) {
  expect_refused(kHost + "--timeout 0x10", "--timeout: '0x10' is not a decimal number");
  expect_refused(kHost + "--seed 0x10", "--seed: '0x10' is not a decimal number");
}

// An option given twice said "--timeout: At Most 1 required but received 2".
TEST(CliRoughInputs, RepeatedOption) {
  expect_refused(kHost + "--timeout 5 --timeout 6", "arbench: error: --timeout is given 2 times; give it once");
  expect_refused("compare " + sample_result() + " " + sample_result() + " --alpha 0.01 --alpha 0.02",
                 "--alpha is given 2 times; give it once");
}

// `--out file.json/r.json` was blamed on a missing folder.
TEST(CliRoughInputs, OutputBelowAFile) {
  const std::string file = testing::TempDir() + "arbench-rough-" + std::to_string(::getpid()) + ".json";
  { std::ofstream(file) << "{}"; }
  expect_refused(kHost + "--out " + file + "/r.json", file + " is a file, not a folder");
  std::filesystem::remove(file);
}

// Both were accepted, and --strict then meant nothing.
TEST(CliRoughInputs, StrictWithCorrectnessOnly) {
  const std::string s = sample_result();
  expect_refused("compare " + s + " " + s + " --strict --correctness-only",
                 "arbench compare: --strict with --correctness-only: --strict counts more slower cases, "
                 "--correctness-only counts none; give one of them");
}

// The same result twice replaced its own cases, silently; by another path too.
TEST(CliRoughInputs, SettingsSameFileTwice) {
  const std::string f = std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/settings/pcie8-crossovers.json";
  const std::string other = std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/settings/../settings/pcie8-crossovers.json";
  const std::string out = " --out-dir " + testing::TempDir() + "arbench-rough-settings";
  expect_refused("settings " + f + " " + f + out, "RESULT " + f + " is given twice (as " + f + "); give each result once");
  expect_refused("settings " + f + " " + other + out, "is given twice");
}
