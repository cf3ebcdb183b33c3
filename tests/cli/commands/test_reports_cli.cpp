// `arbench compare` and `arbench tune` end to end through the executable: exit codes 0/1/2,
// errors naming the file and the problem, the dispatch table written by --out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/cli/cli_util.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace {

using nlohmann::json;
using namespace arbench::testing;  // the synthetic results

json sample(double nccl_us) {
  return make_result({{ar_name("nccl", 8, 1024), jittered(nccl_us, 0.01, 40, 1)},
                      {ar_name("oneshot-push", 8, 1024), jittered(6, 0.01, 40, 2)}});
}

TEST(CompareCli, UnchangedExitsZero) {
  const std::string base = write_temp(sample(20).dump(), "base");
  const CliResult r = run_arbench("compare " + base + " " + base);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no regression"), std::string::npos) << r.output;
}

TEST(CompareCli, RegressionExitsOne) {
  const std::string base = write_temp(sample(20).dump(), "base");
  const std::string next = write_temp(sample(23).dump(), "new");
  const CliResult r = run_arbench("compare " + base + " " + next + " --format markdown");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("**slower**"), std::string::npos) << r.output;
  // A 15% slowdown is tolerated at --threshold 20%.
  EXPECT_EQ(run_arbench("compare " + base + " " + next + " --threshold 20%").exit_code, 0);
}

TEST(CompareCli, JsonFormatParses) {
  const std::string base = write_temp(sample(20).dump(), "base");
  const CliResult r = run_arbench("compare " + base + " " + base + " --format json 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json j = json::parse(r.output);
  ASSERT_EQ(j["cases"].size(), 2u);
  std::set<std::string> names;
  for (const auto& c : j["cases"]) {
    names.insert(c["name"].get<std::string>());
    EXPECT_EQ(c["verdict"], "same") << c.dump();  // a file against itself
    EXPECT_DOUBLE_EQ(c["ratio"].get<double>(), 1.0) << c.dump();
  }
  EXPECT_EQ(names, (std::set<std::string>{ar_name("nccl", 8, 1024), ar_name("oneshot-push", 8, 1024)}));
  EXPECT_EQ(j["regressions"], 0);
}

TEST(CompareCli, UnusableInputExitsTwoNamingTheFile) {
  const std::string good = write_temp(sample(20).dump(), "good");
  const std::string text = sample(20).dump();
  const std::string truncated = write_temp(text.substr(0, text.size() / 3), "truncated");
  CliResult r = run_arbench("compare " + good + " " + truncated);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(truncated + ": not valid JSON"), std::string::npos) << r.output;

  json wrong = sample(20);
  wrong["arbench"]["schema_version"] = 7;
  const std::string mismatched = write_temp(wrong.dump(), "schema");
  r = run_arbench("compare " + mismatched + " " + good);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(mismatched + ": arbench.schema_version is 7"), std::string::npos) << r.output;

  r = run_arbench("compare " + good + " /nonexistent.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/nonexistent.json: no such file; expected a result JSON"), std::string::npos) << r.output;
}

TEST(CompareCli, DifferentMachinesRefusedUnlessAllowed) {
  auto fields = arbench::testing::default_fingerprint_fields();
  fields["gpu_name"] = "NVIDIA H200";
  const std::string a = write_temp(sample(20).dump(), "a");
  const std::string b = write_temp(
      make_result({{ar_name("nccl", 8, 1024), jittered(20, 0.01, 40, 3)}}, "1111222233334444",
                  fields)
          .dump(),
      "b");
  CliResult r = run_arbench("compare " + a + " " + b);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("gpu_name"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H200"), std::string::npos) << r.output;
  // b lacks a's oneshot-push case: --allow-missing, or the missing case would fail the gate.
  r = run_arbench("compare " + a + " " + b + " --allow-different-machines --allow-missing");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(TuneCli, WritesDispatchTable) {
  const std::string result = write_temp(sample(20).dump(), "tune");
  const std::string out = result + ".table.json";
  const CliResult r = run_arbench("tune " + result + " --out " + out + " --format markdown");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("#### allreduce bf16, 8 GPUs"), std::string::npos) << r.output;
  std::ifstream f(out);
  const json table = json::parse(f);
  EXPECT_EQ(table["schema"], "arbench-dispatch-table");
  EXPECT_EQ(table["tables"][0]["rules"][0]["variant"], "oneshot-push");
  std::filesystem::remove(out);
}

TEST(TuneCli, PlainBenchmarkWithoutArbenchNamesExitsTwo) {
  const std::string plain =
      write_temp(R"({"benchmarks": [{"name": "BM_A", "real_time": 1.0}]})", "plain");
  const CliResult r = run_arbench("tune " + plain);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(plain + ": no successful case"), std::string::npos) << r.output;
}

// The issue's done-when: a run with vllm-custom fastest at 2, 4 and 8 GPUs over PCIe (no NVLink
// recorded) dispatches it at 2 only, through the registry the executable has (built with the peers
// or not: the result may come from a build that had them); each peer labelled with its engine.
TEST(TuneCli, VllmCustomDispatchedAtTwoGpusOnly) {
  std::vector<SynthCase> cases;
  unsigned seed = 1;
  for (int w : {2, 4, 8})
    for (std::uint64_t b = 1024; b <= 4096; b *= 2) {
      cases.push_back({ar_name("vllm-custom", w, b), jittered(2, 0.01, 30, seed++)});
      cases.push_back({ar_name("oneshot-push", w, b), jittered(5, 0.01, 30, seed++)});
    }
  const std::string result = write_temp(make_result(cases).dump(), "vllm-custom");
  const std::string out = result + ".table.json";
  const CliResult r = run_arbench("tune " + result + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(out);
  const json table = json::parse(f);
  ASSERT_EQ(table["tables"].size(), 3u) << table.dump(1);
  for (const json& t : table["tables"])
    for (const json& rule : t["rules"])
      EXPECT_EQ(rule["variant"], t["world"] == 2 ? "vllm-custom" : "oneshot-push") << t.dump(1);
  std::string flat;  // the report's lines joined at their wraps (fit_line indents a continuation)
  for (char ch : r.output) {
    if (ch == ' ' && !flat.empty() && (flat.back() == ' ' || flat.back() == '\n')) {
      if (flat.back() == '\n') flat.back() = ' ';
      continue;
    }
    flat += ch;
  }
  EXPECT_NE(flat.find("vllm-custom (6 cases): not a dispatch candidate, no engine selects it: vLLM turns its custom "
                      "all-reduce off on more than two GPUs"),
            std::string::npos)
      << r.output;
  EXPECT_NE(flat.find("vllm-custom: as vLLM runs it"), std::string::npos) << r.output;
  // The referee holds arbench's best against vLLM's choice where vLLM runs it: the 3 sizes at 2 GPUs,
  // where vllm-custom is faster, and no point at 4 or 8.
  EXPECT_NE(flat.find("goal: met at 0 of 3 points"), std::string::npos) << r.output;
  EXPECT_EQ(json::parse(std::ifstream(out))["referee"]["of"], 3);
  std::filesystem::remove(out);
}

}  // namespace
