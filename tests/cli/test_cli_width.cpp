// What arbench prints for people fits in 120 columns (bench/text): every subcommand's --help, and
// each text report on fixtures: the run's table, fusion summary, --phases and --skew block and
// footer, `list`, `compare`, `tune`, `step` (and its refusal) and `topo` of every saved tree. Was:
// 35 help lines up to 258 columns, CLI11 leftovers such as "--no-check{false}", the phase block at
// 137-144, step's lines at 160, tune's ignored line at 133. JSON and markdown are for programs
// and renderers, and are not checked.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "tests/cli/inputs/help_options.hpp"
#include "tests/cli/inputs/probe_bases.hpp"

namespace {

// Columns of a UTF-8 line ("·" is one column, two bytes).
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

void expect_fits(const std::string& what, const CliResult& r) {
  std::istringstream in(r.raw);  // as printed, wrapped errors and all
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    EXPECT_LE(columns(line), 120u) << what << ", line " << n << " (" << columns(line) << " columns):\n" << line;
  }
  EXPECT_GT(n, 0) << what;
}

const std::string kSample = sample_result();

}  // namespace

TEST(CliWidth, EveryHelp) {
  std::vector<std::string> subs = help_subcommands();
  ASSERT_GE(subs.size(), 6u);
  subs.insert(subs.begin(), "");
  for (const std::string& sub : subs) {
    const CliResult r = run_arbench(sub + " --help");
    ASSERT_EQ(r.exit_code, 0) << sub << "\n" << r.output;
    expect_fits("arbench " + sub + " --help", r);
    for (const char* leftover : {"{false}", "{true}", "Excludes:", "Needs:", "REQUIRED"})
      EXPECT_EQ(r.output.find(leftover), std::string::npos) << "arbench " << sub << " --help shows CLI11's '" << leftover
                                                            << "':\n" << r.output;
  }
}

TEST(CliWidth, RunWithPhasesSkewAndFusion) {
  const CliResult r = run_arbench(
      "run --backend host --gpus 4 -b 1K -e 4K -f 4 --variants 'oneshot-*,twoshot,ring,unfused-oneshot,fused-*' "
      "--tokens 1 --phases --skew 0,20 --warmup 0 --samples 2 --pipelined-ops 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_NE(r.output.find("phases: median of recorded ops"), std::string::npos) << r.output;
  ASSERT_NE(r.output.find("fusion summary"), std::string::npos) << r.output;
  ASSERT_NE(r.output.find("/skew:20"), std::string::npos) << r.output;
  expect_fits("run --phases --skew", r);
}

TEST(CliWidth, List) { expect_fits("list", run_arbench("list --backend host")); }

// Was: a 20-column name field, so "fused-island-oneshot" ran into its summary
// ("fused-island-oneshotone kernel: ...") and scripts reading the catalogue took that for a name.
TEST(CliWidth, ListCatalogueNamesStandApartFromTheirSummaries) {
  const CliResult r = run_arbench("list --backend host");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream in(r.output);
  int entries = 0;
  std::size_t summary_column = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#   allreduce", 0) != 0) continue;  // `#   <family>  <name>  <summary>`
    ++entries;
    std::istringstream words(line.substr(1));
    std::string family, name;
    words >> family >> name;
    const std::size_t end = line.find(name, line.find(family) + family.size()) + name.size();
    EXPECT_EQ(line.substr(end, 2), "  ") << "the name runs into its summary:\n" << line;
    const std::size_t summary = line.find_first_not_of(' ', end);
    if (summary_column == 0) summary_column = summary;
    EXPECT_EQ(summary, summary_column) << "summaries start in one column:\n" << line;
  }
  EXPECT_GE(entries, 12) << r.output;
  EXPECT_NE(r.output.find("fused-island-oneshot  "), std::string::npos) << r.output;
}

TEST(CliWidth, CompareTuneStep) {
  expect_fits("compare", run_arbench("compare " + kSample + " " + kSample));
  expect_fits("tune", run_arbench("tune " + kSample));
  expect_fits("step", run_arbench("step " + kSample + " --model llama3-70b,qwen3-32b --batch 1 --draft 0,3 --gpus 8"));
  expect_fits("step --step-ms", run_arbench("step " + kSample + " --model llama3-70b --batch 1 --draft 3 --gpus 8 "
                                            "--step-ms 11.2"));
  const CliResult missing = run_arbench("step " + kSample + " --model llama3-70b --batch 16 --draft 7 --gpus 8");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  expect_fits("step, sizes missing", missing);
}

TEST(CliWidth, TopoOfEverySavedTree) {
  for (const char* tree : {"one_switch_four_gpus", "four_switches_two_sockets", "direct_two_root_complexes", "broken"})
    expect_fits(std::string("topo ") + tree,
                run_arbench(std::string("topo --sysfs-root ") + ARBENCH_SOURCE_DIR + "/tests/fixtures/sysfs/" + tree));
}

// `settings`: its paste lines, commands and notes (was: paste lines up to 150 columns; now they
// wrap as shell continuations, each broken line ending in " \").
TEST(CliWidth, Settings) {
  const std::string out = testing::TempDir() + "arbench-width-settings";
  for (const char* fixture : {"pcie8-crossovers.json", "nccl-default-wins.json", "no-fused.json"}) {
    const CliResult r = run_arbench(std::string("settings ") + ARBENCH_SOURCE_DIR + "/tests/fixtures/settings/" + fixture +
                                    " --out-dir " + out);
    ASSERT_EQ(r.exit_code, 0) << fixture << "\n" << r.output;
    expect_fits(std::string("settings ") + fixture, r);
  }
}

// Errors: long and multi-line ones are wrapped (continuation lines indented), whether from parsing
// (CLI11), from the run's checks, or from a subcommand.
TEST(CliWidth, Errors) {
  const std::string sample = kSample;
  for (const std::string& args :
       {std::string("--variants 'nccl[tuned]' --backend host"), std::string("--timeout 5 --timeout 6"),
        std::string("--backend host --variants nccl"), std::string("--host-threads 4 --backend cuda"),
        std::string("--family allreduce --tokens 4"), std::string("--skew 500000 --timeout 0.1"),
        "compare " + sample + " " + sample + " --strict --correctness-only",
        "settings " + sample + " " + sample, std::string("--benchmark_repetitions=3")}) {
    const CliResult r = run_arbench(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    expect_fits("arbench " + args, r);
  }
}

// `topo`: the header and report of this machine (no GPU here: the message saying so) and of a
// saved tree with a long path.
TEST(CliWidth, TopoHeader) {
  expect_fits("topo", run_arbench("topo"));
  expect_fits("topo --no-measure", run_arbench("topo --no-measure"));
}

// The nightly's notes and lines (was: notes of 200+ columns): a first night and a second, from a
// committed result (no run), in a scratch results folder.
TEST(CliWidth, Nightly) {
  const std::string dir = testing::TempDir() + "arbench-width-nightly-" + std::to_string(::getpid());
  const std::string night = std::string("ARBENCH_EXE=") + ARBENCH_EXE + " bash " + ARBENCH_SOURCE_DIR +
                            "/scripts/nightly.sh --no-plots --results " + dir + " --from-result " + kSample;
  for (int n = 0; n < 2; ++n) {
    const CliResult r = run_shell(night);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    expect_fits("nightly.sh, night " + std::to_string(n + 1), r);
  }
  std::filesystem::remove_all(dir);
}
