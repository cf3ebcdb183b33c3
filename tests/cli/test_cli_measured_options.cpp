// The options that change what is measured, end to end through the executable (host backend):
// each must show in what was run and recorded, not only be accepted. (That the variants really
// receive them, and that --seed changes the inputs, is tests/app/test_run_options.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

using nlohmann::json;

const std::string kQuick = "run --backend host --gpus 2 -b 1K -e 2K --samples 2 --warmup 1 --pipelined-ops 1 -q ";

// Runs `args` + --out and returns the result document (exit code 0 required).
json run_json(const std::string& args, const std::string& tag) {
  const std::string out = testing::TempDir() + "arbench-measured-" + tag + "-" + std::to_string(::getpid()) + ".json";
  const CliResult r = run_arbench(args + " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  std::ifstream in(out);
  if (!in) return json::object();
  json doc = json::parse(in);
  std::remove(out.c_str());
  return doc;
}

std::map<std::string, std::string> settings(const json& c) {
  std::map<std::string, std::string> s;
  for (const auto& [k, v] : c["settings"].items()) s[k] = v.get<std::string>();
  return s;
}

TEST(CliMeasuredOptions, InPlaceRunsAndChecksTheInPlaceCases) {
  const json doc = run_json(kQuick + "--family allreduce --in-place", "inplace");
  ASSERT_FALSE(doc["arbench"]["cases"].empty());
  EXPECT_TRUE(doc["arbench"]["config"]["in_place"].get<bool>());
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_TRUE(c["in_place"].get<bool>()) << c["name"];
    EXPECT_NE(c["name"].get<std::string>().find("/inplace"), std::string::npos) << c["name"];
    EXPECT_TRUE(c["checked"].get<bool>()) << c["name"];
    EXPECT_EQ(c["status"], "ok") << c["name"] << ": " << c["reason"];
  }
}

TEST(CliMeasuredOptions, NoCheckMarksEveryResultUnchecked) {
  const json checked = run_json(kQuick + "--variants reference", "checked");
  for (const auto& c : checked["arbench"]["cases"]) EXPECT_TRUE(c["checked"].get<bool>()) << c["name"];
  const json doc = run_json(kQuick + "--variants reference --no-check", "nocheck");
  ASSERT_EQ(doc["arbench"]["cases"].size(), 2u);
  EXPECT_FALSE(doc["arbench"]["config"]["check"].get<bool>());
  for (const auto& c : doc["arbench"]["cases"]) EXPECT_FALSE(c["checked"].get<bool>()) << c["name"];
  const CliResult banner = run_arbench("run --backend host --gpus 2 -b 1K -e 1K --samples 1 --variants reference --no-check");
  EXPECT_NE(banner.output.find("check OFF"), std::string::npos) << banner.output;
}

TEST(CliMeasuredOptions, SeedIsRecorded) {
  const json doc = run_json(kQuick + "--variants reference --seed 12345", "seed");
  EXPECT_EQ(doc["arbench"]["config"]["seed"], 12345);
}

TEST(CliMeasuredOptions, BlocksReachTheCustomVariants) {
  const json def = run_json(kQuick + "--variants oneshot-pull,twoshot", "blocks-default");
  const json doc = run_json(kQuick + "--variants oneshot-pull,twoshot --blocks 3", "blocks");
  ASSERT_EQ(doc["arbench"]["cases"].size(), 4u);
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(settings(c)["blocks"], "3") << c["name"];
    EXPECT_EQ(c["status"], "ok") << c["name"] << ": " << c["reason"];
  }
  for (const auto& c : def["arbench"]["cases"]) EXPECT_NE(settings(c)["blocks"], "3") << c["name"];
}

TEST(CliMeasuredOptions, EpsAndModelShapeTheFusedCases) {
  // --eps 1000 dwarfs mean(r^2): the kernels and the fp64 reference must both use it for the
  // check to pass. --model sets the hidden size in every fused case.
  const json doc = run_json("run --backend host --gpus 2 --samples 2 --warmup 1 --pipelined-ops 1 -q "
                            "--family allreduce_rmsnorm --tokens 2 --model llama3-8b --eps 1000",
                            "eps");
  // unfused-oneshot, fused-oneshot, fused-twoshot, fused-island-oneshot, fused-island-twoshot
  ASSERT_EQ(doc["arbench"]["cases"].size(), 5u);
  EXPECT_DOUBLE_EQ(doc["arbench"]["config"]["eps"].get<double>(), 1000.0);
  EXPECT_EQ(doc["arbench"]["config"]["model"], "llama3-8b");
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["hidden"], 4096) << c["name"];
    EXPECT_NE(c["name"].get<std::string>().find("/tokens:2/hidden:4096"), std::string::npos) << c["name"];
    EXPECT_EQ(c["status"], "ok") << c["name"] << ": " << c["reason"];
    EXPECT_TRUE(c["checked"].get<bool>());
  }
}

TEST(CliMeasuredOptions, TimeoutIsRecorded) {
  const json doc = run_json(kQuick + "--variants reference --timeout 2.5", "timeout");
  EXPECT_DOUBLE_EQ(doc["arbench"]["config"]["timeout_s"].get<double>(), 2.5);
}

TEST(CliMeasuredOptions, BenchmarkFilterRunsOnlyTheMatchingCases) {
  const json all = run_json(kQuick + "--family allreduce", "filter-all");
  const json doc = run_json(kQuick + "--family allreduce --benchmark_filter=/twoshot/.*/bytes:2048", "filter");
  std::set<std::string> names;
  for (const auto& c : doc["arbench"]["cases"]) names.insert(c["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"allreduce/twoshot/bf16/gpus:2/bytes:2048"}));
  EXPECT_EQ(doc["benchmarks"].size(), 1u);
  EXPECT_GT(all["arbench"]["cases"].size(), 1u);
}

}  // namespace
