// The bad inputs a first hour turns up: each is exit 2 with a message naming the value, before
// any case runs (docs/user-guide.md, "Errors and exit codes"). Beside test_cli_errors.cpp.
#include <gtest/gtest.h>

#include "tests/cli/cli_util.hpp"

namespace {

void expect_usage_error(const std::string& args, const std::vector<std::string>& words) {
  CliResult r = run_arbench(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  for (const auto& w : words) EXPECT_NE(r.output.find(w), std::string::npos) << args << "\nwanted: " << w << "\ngot:\n" << r.output;
  EXPECT_EQ(r.output.find("cases run"), std::string::npos) << "a case ran:\n" << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

const std::string kHost = "run --backend host --samples 1 --warmup 0 --pipelined-ops 0 ";

}  // namespace

// Was "internal error: std::bad_alloc", exit 1, after the smaller cases had run.
TEST(CliBadInputs, HostSweepThatCannotFitInMemory) {
  expect_usage_error(kHost + "--variants ring --gpus 8 -b 64G -e 64G",
                     {"do not fit in memory", "allreduce/ring/bf16/gpus:8/bytes:68719476736", "needs about",
                      "is available", "lower --max-bytes"});
}

// Was silently 8192.
TEST(CliBadInputs, HiddenZero) {
  expect_usage_error(kHost + "--family allreduce_rmsnorm --hidden 0", {"--hidden: 0 is out of range: 1 <= H <= 1048576"});
}

TEST(CliBadInputs, HiddenAndModelTogether) {
  expect_usage_error(kHost + "--family allreduce_rmsnorm --hidden 4096 --model llama3-70b", {"--hidden", "--model"});
}

// Were duplicate cases that compare and tune then reject.
TEST(CliBadInputs, DuplicatesInListOptions) {
  expect_usage_error(kHost + "--gpus 2,2", {"--gpus: 2 is listed twice"});
  expect_usage_error(kHost + "--dtype bf16,bf16", {"--dtype: bf16 is listed twice"});
  expect_usage_error(kHost + "--family allreduce_rmsnorm --tokens 1,4,1", {"--tokens: 1 is listed twice"});
  expect_usage_error(kHost + "--variants ring,ring", {"--variants: ring is listed twice"});
}

// Was a failed ring case (exit 1) per world size.
TEST(CliBadInputs, RingOrderThatIsNotAPermutation) {
  expect_usage_error(kHost + "--gpus 2 --ring-order 0,0", {"--ring-order: 0 is listed twice"});
  expect_usage_error(kHost + "--gpus 2,4 --ring-order 0,1,3,2", {"--ring-order 0,1,3,2 names 4 ranks, but the case has 2"});
}

// Was 0 cases and exit 0, after a banner counting the unfiltered sweep.
TEST(CliBadInputs, FilterMatchingNothing) {
  expect_usage_error(kHost + "--benchmark_filter=nomatch", {"--benchmark_filter=nomatch matches none of the", "arbench list"});
  expect_usage_error(kHost + "'--benchmark_filter=gpus:(2'", {"--benchmark_filter=gpus:(2 is not a valid"});
}

TEST(CliBadInputs, BannerCountsWhatTheFilterLeaves) {
  CliResult r = run_arbench(kHost + "--variants reference --gpus 2,4 -b 1K -e 2K --benchmark_filter=gpus:4/bytes:2048$");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("  cases: 1 to run (3 left out by --benchmark_filter), 0 skipped\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 cases run, 1 ok"), std::string::npos) << r.output;
  CliResult l = run_arbench("list --backend host --variants reference --gpus 2,4 -b 1K -e 2K --benchmark_filter=gpus:4");
  EXPECT_NE(l.output.find("# backend host: 2 cases, 0 skipped"), std::string::npos) << l.output;
}

// Was "--min-bytes 1K is larger than --max-bytes 0".
TEST(CliBadInputs, MaxBytesZero) {
  expect_usage_error(kHost + "-e 0", {"--max-bytes: 0 is out of range: 1 <= SIZE <= 64G (bytes)"});
}

TEST(CliBadInputs, BenchmarkFormatOtherThanConsole) {
  expect_usage_error(kHost + "--benchmark_format=json", {"--benchmark_format=json", "--out FILE.json"});
}
