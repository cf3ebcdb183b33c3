// Each bad input gets a one-line message naming the value, and its exit code
// (docs/user-guide.md, "Errors and exit codes").
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace {

void expect_exit(const std::string& args, int code, const std::string& needle) {
  CliResult r = run_arbench(args);
  EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\nwanted: " << needle << "\ngot:\n" << r.output;
}

const std::string kHost = "run --backend host --samples 1 --warmup 0 --pipelined-ops 0 ";

}  // namespace

TEST(CliErrors, UnknownVariant) { expect_exit(kHost + "--variants warp-speed", 2, "--variants: unknown variant 'warp-speed'"); }
TEST(CliErrors, UnknownDtype) { expect_exit(kHost + "--dtype int8", 2, "--dtype: 'int8' is not one of bf16, fp16 or fp32"); }
TEST(CliErrors, UnknownSubcommand) {
  expect_exit("frobnicate", 2, "unknown subcommand 'frobnicate'; subcommands: run (default), list, compare, tune, topo");
}
TEST(CliErrors, MinLargerThanMax) { expect_exit(kHost + "-b 64K -e 1K", 2, "--min-bytes 64K is larger than --max-bytes 1K"); }
TEST(CliErrors, SizeNotMultipleOfElement) {
  expect_exit(kHost + "--dtype fp32 -b 1026 -e 4K", 2, "1026 bytes is not a multiple of the fp32 element size");
}
TEST(CliErrors, StepFactorNotAboveOne) { expect_exit(kHost + "-f 1", 2, "--step-factor: 1 is out of range: 1 < F <= 1024"); }
TEST(CliErrors, TooManyRanks) { expect_exit(kHost + "--gpus 16", 2, "--gpus: 16 is out of range: 1 <= N <= 8"); }
TEST(CliErrors, EmptySweep) {
  expect_exit(kHost + "--family allreduce_rmsnorm --variants reference", 2, "the sweep is empty");
}
TEST(CliErrors, NothingRunnable) { expect_exit(kHost + "--variants nccl", 2, "nothing to run"); }
TEST(CliErrors, UnwritableOut) {
  expect_exit(kHost + "--variants reference --gpus 2 -b 1K -e 1K --out /nonexistent-dir/r.json", 2,
              "--out /nonexistent-dir/r.json: the folder /nonexistent-dir does not exist");
}
TEST(CliErrors, BadSizeText) { expect_exit(kHost + "-b 12Q", 2, "--min-bytes: '12Q' is not a size; use a byte count"); }

TEST(CliErrors, CudaBackendWithoutGpuIsAnEnvironmentError) {
  if (has_gpu_driver_and_device()) GTEST_SKIP() << "a GPU is present: this test is for machines without one";
  expect_exit("run --backend cuda", 3, "--backend host");
  expect_exit("run --backend single-gpu", 3, "no usable CUDA device");
}

TEST(CliErrors, MoreGpusThanPresent) {
  if (!has_gpu_driver_and_device()) GTEST_SKIP() << "no GPU: the cuda backend exits 3 before counting";
  expect_exit("run --backend cuda --gpus 64", 2, "more GPUs than");
}

TEST(CliErrors, LinksFileWithMalformedPatternsBeforeAnyWork) {
  // A valid links file whose speed-of-light "patterns" object is not one: exit 2 at the option.
  std::ifstream in(std::string(ARBENCH_SOURCE_DIR) + "/tests/fixtures/topo/loaded_4gpu.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["patterns"] = {{"schema", "arbench-patterns/0"}};
  const std::string path = testing::TempDir() + "arbench-bad-patterns-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << j.dump();
  expect_exit(kHost + "--links " + path, 2, "not a patterns object");
  std::remove(path.c_str());
}

TEST(CliErrors, MissingLinksFile) {
  expect_exit(kHost + "--links /nonexistent-links.json", 2, "--links: /nonexistent-links.json: no such file; expected a links file");
}
