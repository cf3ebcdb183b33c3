// `arbench run --backend host` end to end: exit code, console, JSON against the documented
// schema, CSV; `arbench list`; `--help`.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <iterator>
#include <regex>
#include <set>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "tests/cli/inputs/help_options.hpp"
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
  // What was asked is what was recorded and run.
  const auto& cfg = doc["arbench"]["config"];
  EXPECT_EQ(cfg["samples"], 3);
  EXPECT_EQ(cfg["warmup"], 1);
  EXPECT_EQ(cfg["pipelined_ops"], 2);
  EXPECT_EQ(cfg["gpus"], nlohmann::json::array({2, 3}));
  const auto& cases = doc["arbench"]["cases"];
  std::set<std::string> names;
  for (const auto& c : cases) names.insert(c["name"].get<std::string>());
  for (int world : {2, 3})
    for (int bytes : {1024, 2048, 4096, 8192})
      EXPECT_TRUE(names.count("allreduce/reference/bf16/gpus:" + std::to_string(world) + "/bytes:" + std::to_string(bytes)))
          << world << " " << bytes;
  for (int world : {2, 3})
    for (int tokens : {1, 4})
      EXPECT_TRUE(names.count("allreduce_rmsnorm/fused-oneshot/bf16/gpus:" + std::to_string(world) +
                              "/tokens:" + std::to_string(tokens) + "/hidden:512"));
  // 9 allreduce variants (reference, 3 symmetric, ring, 2 island, ce-twoshot, ce-ring) x 2 worlds x 4 sizes
  // + ce-island at 2 ranks x 4 sizes (3 ranks: halves of 1 and 2, which it declines)
  // + 5 fused variants (unfused-oneshot, fused-oneshot, fused-twoshot, 2 fused island) x 2 worlds x 2 token counts
  EXPECT_EQ(cases.size(), 9u * 2 * 4 + 4u + 5u * 2 * 2) << doc["arbench"]["cases"].dump();
  for (const auto& c : cases) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    EXPECT_TRUE(c["checked"].get<bool>());
    EXPECT_EQ(c["wrong_elements"], 0);
    auto s = c["samples_us"].get<std::vector<double>>();
    ASSERT_EQ(s.size(), 3u);
    std::sort(s.begin(), s.end());
    EXPECT_DOUBLE_EQ(c["median_us"].get<double>(), s[1]) << c["name"];
    EXPECT_GT(c["pipelined_us"].get<double>(), 0.0) << c["name"];
    const double algbw = c["bytes"].get<double>() / (s[1] * 1e3);
    EXPECT_NEAR(c["algbw_GBps"].get<double>(), algbw, 1e-9 * algbw) << c["name"];
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
  std::map<std::string, double> median_of_case;
  for (const auto& c : cases) median_of_case[c["name"].get<std::string>()] = c["median_us"].get<double>();
  while (std::getline(in, line)) {
    ++rows;
    // By the header's names, not positions (no field of a host sweep's cases needs quoting).
    std::vector<std::string> keys, f;
    std::stringstream hs(header), ss(line);
    for (std::string cell; std::getline(hs, cell, ',');) keys.push_back(cell);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    f.resize(keys.size());  // trailing empty cells
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < keys.size(); ++i) row[keys[i]] = f[i];
    EXPECT_EQ(row["backend"], "host") << line;
    EXPECT_EQ(row["status"], "ok") << line;
    ASSERT_TRUE(median_of_case.count(row["name"])) << line;
    EXPECT_NEAR(std::stod(row["median_us"]), median_of_case[row["name"]], 1e-4 * median_of_case[row["name"]]) << line;
  }
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
  EXPECT_NE(r.output.find("allreduce/nccl/bf16/gpus:2/bytes:1024  # skipped [1]\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\n# skipped [1]: NCCL needs GPUs"), std::string::npos) << r.output;
}

// Every option of `run` and `list` that takes a value states its default in --help (the words
// "default" or "Default"), except those whose absence means "not used"; the run-only ones are
// absent from `list --help`.
TEST(CliRun, HelpDocumentsEveryOptionWithDefaults) {
  const std::set<std::string> no_default = {"--model", "--out", "--csv"};
  for (const char* sub : {"run", "list"}) {
    const std::vector<HelpOption> options = help_options(sub);
    ASSERT_GE(options.size(), 25u) << sub;
    std::set<std::string> names;
    for (const HelpOption& o : options) {
      names.insert(o.name());
      if (!o.takes_value() || no_default.count(o.name())) continue;
      EXPECT_TRUE(std::regex_search(o.description, std::regex("default", std::regex::icase)))
          << sub << " " << o.name() << " states no default: " << o.description;
    }
    for (const char* run_only : {"--out", "--csv", "--quiet", "--wide"})
      EXPECT_EQ(names.count(run_only), std::string(sub) == "run" ? 1u : 0u) << sub << " " << run_only;
  }
}
