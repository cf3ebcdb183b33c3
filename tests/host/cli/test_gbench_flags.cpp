// bench/cli/gbench_flags: which --benchmark_* flags reach Google Benchmark.
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "cli/gbench_flags.hpp"

using namespace arbench;

namespace {

std::string refusal(const std::vector<std::string>& args, const std::string& sub = "run") {
  try {
    cli::check_gbench_flags(args, sub);
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(GbenchFlags, HonouredFlagsPassThrough) {
  const cli::GbenchFlags g = cli::check_gbench_flags(
      {"--gpus", "2", "--benchmark_filter=gpus:8", "--benchmark_format=console", "--benchmark_out=gb.json",
       "--benchmark_out_format=csv", "--benchmark_context=a=b", "--benchmark_repetitions=1"},
      "run");
  EXPECT_TRUE(g.console_format);
  EXPECT_EQ(g.out_file, "gb.json");
  EXPECT_EQ(g.flags, (std::vector<std::string>{"--benchmark_filter=gpus:8", "--benchmark_out=gb.json",
                                               "--benchmark_out_format=csv", "--benchmark_context=a=b"}));
  EXPECT_EQ(cli::check_gbench_flags({"--benchmark_filter=x"}, "list").flags.size(), 1u);
}

TEST(GbenchFlags, OthersAreRefusedWithWhatToUse) {
  EXPECT_NE(refusal({"--benchmark_repetitions=3"}).find("--samples N"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_repetitions=0"}).find("not supported by arbench"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_list_tests"}).find("`arbench list`"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_min_time=0.5s"}).find("--min-time S"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_format=csv"}).find("--csv FILE"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_out_format=json"}).find("--benchmark_out=FILE, which is not given"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_out_format=xml", "--benchmark_out=x"}).find("'xml' is not one of"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_filter"}).find("give its value after '='"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_context=novalue"}).find("KEY=VALUE"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_whatever=1"}).find("not a flag arbench passes"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_filter=x"}, "tune").find("not to `arbench tune`"), std::string::npos);
  EXPECT_NE(refusal({"--benchmark_out=x"}, "list").find("`list` takes --benchmark_filter only"), std::string::npos);
}
