// Every bad input of issue 26 ("front door, round two"), as a new user typed it: its exit code and
// message (docs/user-guide.md's error table lists the same). The classes behind them are probed
// for every option by test_cli_every_option.cpp, test_cli_lists.cpp, test_cli_output_paths.cpp
// and test_cli_file_kinds.cpp; this file keeps the reported instances.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"
#include "probe_bases.hpp"

namespace {

struct Expected {
  std::string args;
  int exit_code;
  std::string message;
};

void expect_all(const std::vector<Expected>& cases) {
  for (const Expected& e : cases) {
    const CliResult r = run_arbench(e.args);
    EXPECT_EQ(r.exit_code, e.exit_code) << "arbench " << e.args << "\n" << r.output;
    EXPECT_NE(r.output.find(e.message), std::string::npos) << "arbench " << e.args << "\nwanted: " << e.message
                                                           << "\ngot:\n" << r.output;
    EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran:\n" << r.output;
  }
}

const std::string kHost = "run --backend host --variants reference --gpus 2 -b 1K -e 1K --warmup 0 --pipelined-ops 0 ";

}  // namespace

// 1. Numbers that were not really checked.
TEST(CliFrontDoor, Numbers) {
  const std::string s = sample_result();
  expect_all({
      {kHost + "--family allreduce_rmsnorm --variants fused-oneshot --eps nan", 2, "--eps: nan is not a number; expected 0 < X <= 1000000"},
      {kHost + "--family allreduce_rmsnorm --variants fused-oneshot --eps -1", 2, "--eps: -1 is out of range: 0 < X <= 1000000"},
      {kHost + "-f inf", 2, "--step-factor: inf is not a finite number; expected 1 < F <= 1024"},
      {kHost + "--timeout nan", 2, "--timeout: nan is not a number; expected 0 < S <= 3600"},
      {kHost + "--timeout inf", 2, "--timeout: inf is not a finite number"},
      {kHost + "--timeout 0", 2, "--timeout: 0 is out of range: 0 < S <= 3600"},
      {kHost + "--timeout -3", 2, "--timeout: -3 is out of range: 0 < S <= 3600"},
      {kHost + "--variants twoshot --blocks 100000", 2, "--blocks: 100000 is out of range: 1 <= N <= 64"},
      {kHost + "--variants ring --ring-channels -1", 2, "--ring-channels: -1 is out of range: 1 <= N <= 32"},
      {"compare " + s + " " + s + " --threshold nan", 2, "--threshold: nan is not a number; expected 0 <= PCT <= 10000"},
      {"compare " + s + " " + s + " --alpha 0", 2, "--alpha: 0 is out of range: 0 < P <= 0.5"},
      {"compare " + s + " " + s + " --threshold abc", 2, "--threshold: 'abc' is not a number"},
      {kHost + "--seed -1", 2, "--seed: -1 is out of range"},
      {kHost + "--warmup 1.5", 2, "--warmup: 1.5 is not a whole number"},
  });
}

// 2. Lists with an empty item or a value twice.
TEST(CliFrontDoor, Lists) {
  expect_all({
      {kHost + "--gpus 2,,4", 2, "--gpus: '2,,4' has an empty item"},
      {kHost + "--gpus ''", 2, "--gpus: an empty list"},
      {kHost + "--skew 0,0", 2, "--skew: 0 is listed twice; list each value once"},
  });
}

// 3. Options that cannot apply to what runs.
TEST(CliFrontDoor, OptionsThatDoNotApply) {
  const std::string allreduce = "run --backend host --gpus 2 -b 1K -e 1K --family allreduce ";
  expect_all({
      {allreduce + "--model llama3-70b", 2, "--model shapes the allreduce_rmsnorm family"},
      {allreduce + "--tokens 4", 2, "--tokens shapes the allreduce_rmsnorm family"},
      {allreduce + "--hidden 4096", 2, "--hidden shapes the allreduce_rmsnorm family"},
      {allreduce + "--links " + std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/topo/loaded_4gpu.json", 2,
       "--links concerns the links between GPUs, measured on the cuda backend only (this run uses the host backend)"},
      {allreduce + "--variants ring --blocks 4", 2, "--blocks sets the blocks of arbench's own kernels"},
      {allreduce + "--variants oneshot-pull --ring-chunk 64K", 2, "--ring-chunk tunes the native ring"},
      {"run --backend host --gpus 2 --family allreduce_rmsnorm --tokens 1 -e 4K", 2,
       "--max-bytes applies to the allreduce family, and this sweep has none"},
      {allreduce + "-q --wide", 2, "--quiet excludes --wide"},
      {allreduce + "--symm-mem cuda", 2,
       "--symm-mem chooses who maps the custom kernels' peer memory on the cuda backend (this run uses the host "
       "backend"},
      {allreduce + "--symm-mem peer", 2, "--symm-mem: 'peer' is not one of"},
  });
}

// 3. ... and the JSON records what was used, never a value that was not.
TEST(CliFrontDoor, ConfigRecordsWhatShapedTheSweep) {
  const std::string out = testing::TempDir() + "arbench-frontdoor-" + std::to_string(::getpid()) + ".json";
  const CliResult r = run_arbench(kHost + "-q --family allreduce --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  const nlohmann::json cfg = nlohmann::json::parse(in)["arbench"]["config"];
  for (const char* k : {"tokens", "hidden", "model", "eps", "ring_chunk", "ring_channels", "ring_order", "blocks",
                        "links_file", "link_probe", "allow_ll128_pcie", "symm_mem"})
    EXPECT_FALSE(cfg.contains(k)) << k << " was recorded for a sweep it did not shape: " << cfg.dump();
  for (const char* k : {"gpus", "min_bytes", "max_bytes", "samples", "timeout_s", "sweep_key"})
    EXPECT_TRUE(cfg.contains(k)) << k;
  std::remove(out.c_str());
}

// 6. Incomplete results are said to be incomplete wherever they go.
TEST(CliFrontDoor, IncompleteInputsAreMarked) {
  std::ifstream in(sample_result());
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["arbench"]["incomplete"] = {{"reason", "interrupted (Ctrl-C)"},
                                  {"cases_planned", 400},
                                  {"cases_run", doc["arbench"]["cases"].size()},
                                  {"not_run", nlohmann::json::array({"allreduce/ring/bf16/gpus:8/bytes:1"})}};
  const std::string partial = testing::TempDir() + "arbench-partial-" + std::to_string(::getpid()) + ".json";
  std::ofstream(partial) << doc.dump();
  const std::string s = sample_result();
  const std::string note = partial + " is incomplete: interrupted (Ctrl-C); ";
  for (const std::string& args : {"tune " + partial, "step " + partial + " --model llama3-70b --gpus 8 --batch 1",
                                  "compare " + s + " " + partial + " --allow-missing", "compare " + partial + " " + s})
    for (const char* format : {"", " --format json", " --format markdown"}) {
      const CliResult r = run_arbench(args + format);
      EXPECT_NE(r.output.find(note), std::string::npos) << "arbench " << args << format << "\n" << r.output;
    }
  std::remove(partial.c_str());
}

// 9. `arbench --version`: revision, CUDA and NCCL it was built with, MPI or not.
TEST(CliFrontDoor, VersionSaysWhatWasBuilt) {
  const CliResult r = run_arbench("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* w : {"arbench 0.", "(revision ", "built with CUDA 1", " and NCCL 2.", "MPI"})
    EXPECT_NE(r.output.find(w), std::string::npos) << w << "\n" << r.output;
}
