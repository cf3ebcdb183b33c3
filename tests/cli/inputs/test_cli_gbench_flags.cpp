// Google Benchmark's flags on arbench's command line (bench/cli/gbench_flags.hpp): those arbench
// honours work and are listed in `run --help` and `list --help`; the others are refused with what
// to use instead, before any case runs and without touching --out (was: --benchmark_repetitions=3
// filled the table with fake aggregate rows marked ok and died without a JSON; =0 and
// --benchmark_list_tests replaced --out with an empty result; --benchmark_min_time did nothing).
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/cli_util.hpp"

namespace {

const std::string kRun = "run --backend host --variants reference --gpus 2 -b 1K -e 1K --warmup 0 --pipelined-ops 0 -q ";

std::string temp(const std::string& name) {
  return testing::TempDir() + "arbench-gbench-" + name + "-" + std::to_string(::getpid());
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(CliGbenchFlags, RefusedFlagsSayWhatToUseAndLeaveOutAlone) {
  const std::string out = temp("kept.json");
  std::ofstream(out) << "{\"kept\": true}\n";
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--benchmark_repetitions=3", "for more samples use --samples N, or adaptive sampling"},
      {"--benchmark_repetitions=0", "arbench runs each case once"},
      {"--benchmark_list_tests", "use `arbench list`"},
      {"--benchmark_list_tests=true", "use `arbench list`"},
      {"--benchmark_min_time=0.5s", "use --samples N, or --min-time S with adaptive sampling"},
      {"--benchmark_enable_random_interleaving=true", "sweep order"},
      {"--benchmark_format=json", "arbench writes JSON with --out FILE.json"},
      {"--benchmark_out_format=csv", "the format of --benchmark_out=FILE, which is not given"},
      {"--benchmark_filter=", "give its value after '='"},
      {"--benchmark_nonsense=1", "not a flag arbench passes to Google Benchmark; it honours --benchmark_filter"},
  };
  for (const auto& [flag, why] : refused) {
    const CliResult r = run_arbench(kRun + "--out " + out + " " + flag);
    EXPECT_EQ(r.exit_code, 2) << flag << "\n" << r.output;
    EXPECT_NE(r.output.find(flag.substr(0, flag.find('=') == std::string::npos ? flag.size() : flag.find('='))),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << flag << ": wanted '" << why << "'\n" << r.output;
    EXPECT_EQ(read(out), "{\"kept\": true}\n") << flag << " touched --out";
  }
  std::remove(out.c_str());
}

TEST(CliGbenchFlags, OnlyRunAndListTakeThem) {
  const std::string s = std::string(ARBENCH_SOURCE_DIR) + "/results/samples/host-cpu-timing-sample.json";
  CliResult r = run_arbench("tune " + s + " --benchmark_filter=ring");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("not to `arbench tune`"), std::string::npos) << r.output;
  r = run_arbench("list --backend host --benchmark_out=x.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("`list` takes --benchmark_filter only"), std::string::npos) << r.output;
}

TEST(CliGbenchFlags, HonouredFlagsWork) {
  const std::string out = temp("r.json"), gb = temp("gb.json");
  const CliResult r = run_arbench("run --backend host --variants reference --gpus 2,4 -b 1K -e 1K --warmup 0 "
                                  "--pipelined-ops 0 -q --out " + out + " --benchmark_repetitions=1 --benchmark_filter=gpus:4 "
                                  "--benchmark_out=" + gb + " --benchmark_out_format=json --benchmark_context=box=ci");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out), gin(gb);
  const nlohmann::json doc = nlohmann::json::parse(in), gdoc = nlohmann::json::parse(gin);
  ASSERT_EQ(doc["arbench"]["cases"].size(), 1u);
  EXPECT_EQ(doc["arbench"]["cases"][0]["name"], "allreduce/reference/bf16/gpus:4/bytes:1024");
  EXPECT_EQ(gdoc["benchmarks"].size(), 1u);
  EXPECT_EQ(gdoc["context"]["box"], "ci");
  EXPECT_EQ(doc["context"]["box"], "ci");
  std::remove(out.c_str());
  std::remove(gb.c_str());
}

TEST(CliGbenchFlags, HelpListsTheHonouredFlags) {
  for (const char* sub : {"run", "list"}) {
    const CliResult r = run_arbench(std::string(sub) + " --help");
    EXPECT_NE(r.output.find("--benchmark_filter=REGEX"), std::string::npos) << r.output;
  }
  const CliResult r = run_arbench("run --help");
  for (const char* f : {"--benchmark_format=console", "--benchmark_out=FILE", "--benchmark_out_format", "--benchmark_context"})
    EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
}
