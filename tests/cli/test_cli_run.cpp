// `arbench run --backend host` end to end: exit code, console, JSON against the documented
// schema, CSV; `arbench list`; `--help`.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "results/report.hpp"

namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "arbench-" + name + "-" + std::to_string(::getpid());
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST(CliRun, HostSweepWritesValidJsonAndCsv) {
  const std::string out = temp_path("r.json"), csv = temp_path("r.csv");
  CliResult r = run_arbench("run --backend host --gpus 2,3 -b 1K -e 8K --tokens 1,4 --hidden 512 --samples 3 --warmup 1 "
                            "--pipelined-ops 2 --out " +
                            out + " --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("backend host"), std::string::npos) << r.output;
  // The table lists each case under its family: `allreduce` then `reference/bf16/gpus:3/bytes:8192`.
  EXPECT_NE(r.output.find("\nallreduce "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\n  reference/bf16/gpus:3/bytes:8192 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 failed"), std::string::npos) << r.output;

  nlohmann::json doc = read_json(out);
  auto problems = arbench::validate_result_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(doc["arbench"]["provenance"]["backend"], "host");
  EXPECT_EQ(doc["arbench"]["provenance"]["timing"], "cpu");
  EXPECT_EQ(doc["arbench"]["provenance"]["fingerprint"].get<std::string>().size(), 16u);
  const auto& cases = doc["arbench"]["cases"];
  EXPECT_GE(cases.size(), 8u);  // 2 worlds x 4 sizes of `reference`
  for (const auto& c : cases) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_TRUE(c["checked"].get<bool>());
    EXPECT_EQ(c["wrong_elements"], 0);
    EXPECT_EQ(c["samples_us"].size(), 3u);
  }
  // Google Benchmark's own schema: manual time = median isolated latency.
  EXPECT_EQ(doc["benchmarks"].size(), cases.size());
  for (const auto& b : doc["benchmarks"]) {
    EXPECT_EQ(b["time_unit"], "us");
    EXPECT_EQ(b["name"], b["run_name"]);
    EXPECT_TRUE(b["name"].get<std::string>().find("iterations") == std::string::npos) << b["name"];
    for (const auto& c : cases) {
      if (c["name"] == b["name"]) {
        EXPECT_DOUBLE_EQ(b["real_time"].get<double>(), c["median_us"].get<double>());
      }
    }
  }
  EXPECT_FALSE(doc["arbench"]["skipped"].empty());  // nccl is skipped on host, with a reason

  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("name,family,variant,dtype,world,bytes", 0), 0u);
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, int(cases.size()));
}

TEST(CliRun, DefaultSubcommandIsRun) {
  CliResult r = run_arbench("--backend host --variants reference --gpus 2 -b 1K -e 1K --samples 1 -q");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 cases run, 1 ok"), std::string::npos) << r.output;
}

TEST(CliRun, ListShowsCasesAndSkipReasons) {
  CliResult r = run_arbench("list --backend host --gpus 2 -b 1K -e 2K");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("allreduce/reference/bf16/gpus:2/bytes:2048\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("allreduce/nccl/bf16/gpus:2/bytes:1024  # skipped: NCCL needs GPUs"), std::string::npos)
      << r.output;
}

TEST(CliRun, HelpDocumentsEveryOptionWithDefaults) {
  CliResult r = run_arbench("run --help");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* opt : {"--gpus", "--min-bytes", "--max-bytes", "--step-factor", "--dtype", "--variants", "--warmup",
                          "--samples", "--pipelined-ops", "--no-check", "--out", "--csv", "--backend", "--seed",
                          "--quiet", "--family", "--tokens", "--hidden", "--model", "--eps", "--blocks"})
    EXPECT_NE(r.output.find(opt), std::string::npos) << opt;
  EXPECT_NE(r.output.find("default 1K"), std::string::npos);
}
