// `arbench step` end to end on the shipped sample result (host backend): the table for two
// models, the JSON it writes, the refusal to extrapolate (exit 2, the missing sizes and the
// `arbench run` line on stderr), and bad usage (exit 2) before any file is read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_util.hpp"

namespace {

// Text as it reads, whatever the line breaks: a report wraps its lines at 120 columns, a command
// line with " \\" continuations.
std::string flat(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 3, " \\\n") == 0) i += 2;
    const bool space = s[i] == ' ' || s[i] == '\n';
    if (space && !out.empty() && out.back() == ' ') continue;
    out += space ? ' ' : s[i];
  }
  return out;
}

bool has(const std::string& s, const std::string& piece) { return flat(s).find(flat(piece)) != std::string::npos; }

const std::string kSample = std::string(ARBENCH_SOURCE_DIR) + "/results/samples/host-cpu-timing-sample.json";

TEST(StepCli, TwoModelsOnTheSample) {
  CliResult r = run_arbench("step " + kSample + " --model llama3-70b,qwen3-32b --batch 1,8 --draft 0,3,7 --gpus 8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "llama3-70b: 80 layers, hidden 8192, bf16: 160 all-reduces per step")) << r.output;
  EXPECT_TRUE(has(r.output, "qwen3-32b: 64 layers, hidden 5120, bf16: 128 all-reduces per step")) << r.output;
  EXPECT_TRUE(has(r.output, "CPU timing")) << r.output;
  // The host result has no NCCL: the baseline is named, with the reason.
  EXPECT_TRUE(has(r.output, "savings are against unfused-oneshot: unfused-nccl is not among the projected variants "
                            "(the host backend has no NCCL)"))
      << r.output;
  // llama3-70b's fused-family rows (hidden 8192 is in the sample) and qwen3-32b's interpolated
  // all-reduce rows (no fused case at 5120).
  EXPECT_TRUE(has(r.output, "fused-oneshot    yes")) << r.output;
  EXPECT_TRUE(has(r.output, "* interpolated on a log-log scale")) << r.output;
}

TEST(StepCli, WritesJsonAtomically) {
  const std::string out = ::testing::TempDir() + "arbench_step_cli_" + std::to_string(::getpid()) + ".json";
  CliResult r = run_arbench("step " + kSample + " --model gpt-oss-120b --gpus 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], "arbench-step");
  EXPECT_EQ(j["models"][0]["name"], "gpt-oss-120b");
  EXPECT_EQ(j["models"][0]["allreduces_per_step"], 72);
  EXPECT_FALSE(j["models"][0]["tables"][0]["rows"].empty());
  for (const auto& e : std::filesystem::directory_iterator(::testing::TempDir()))
    EXPECT_FALSE(has(e.path().filename().string(), std::filesystem::path(out).filename().string() + ".tmp"));
  std::filesystem::remove(out);
  // --format json prints the same document, and nothing else, on stdout.
  const std::string cmd = std::string(ARBENCH_EXE) + " step " + kSample +
                          " --model gpt-oss-120b --gpus 2 --format json --out " + out + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string stdout_text;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) stdout_text.append(buf, n);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_EQ(nlohmann::json::parse(stdout_text)["models"][0]["name"], "gpt-oss-120b") << stdout_text;
  std::filesystem::remove(out);
}

TEST(StepCli, RefusesToExtrapolateWithTheRunLine) {
  // 16 x 8 = 128 tokens at hidden 8192 = 2 MiB: the sample's all-reduces stop at 1 MiB.
  CliResult r = run_arbench("step " + kSample + " --model llama3-70b --batch 16 --draft 7 --gpus 2,4");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r.output, "cannot project llama3-70b without extrapolating")) << r.output;
  EXPECT_TRUE(has(r.output, "allreduce, gpus 2,4, bf16 (oneshot-push, reference, ring): missing 2 MiB")) << r.output;
  EXPECT_TRUE(has(r.output, "arbench run --backend host --family allreduce --variants 'oneshot-push,reference,ring' "
                            "--gpus 2,4 --dtype bf16 -b 2097152 -e 2097152 --out step-sizes.json"))
      << r.output;
  // Restricted to the fused family, the same step is covered (tokens up to 256 were measured).
  r = run_arbench("step " + kSample + " --model llama3-70b --batch 16 --draft 7 --gpus 2,4 --variants 'fused-*'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(StepCli, BadUsageIsExitTwo) {
  struct Case {
    std::string args, says;
  };
  const Case cases[] = {
      {"step " + kSample, "name a model with --model"},
      {"step " + kSample + " --model llama4", "--model: 'llama4' is not one of"},
      {"step " + kSample + " --hidden 4096", "--layers is missing"},
      {"step " + kSample + " --model llama3-70b,qwen3-32b --layers 10", "override one model"},
      {"step " + kSample + " --model llama3-70b --batch 0", "--batch: 0 is out of range"},
      {"step " + kSample + " --model llama3-70b --draft -1", "--draft: -1 is out of range"},
      {"step " + kSample + " --model llama3-70b --layers 0", "--layers: 0 is out of range"},
      {"step " + kSample + " --model llama3-70b --step-ms 5 --draft 0,3", "needs exactly one --batch and one --draft"},
      {"step " + kSample + " --model llama3-70b --step-ms 0", "--step-ms: 0 is out of range"},
      {"step " + kSample + " --model llama3-70b --gpus 16", "--gpus 16"},
      {"step " + kSample + " --model llama3-70b --dtype fp32", "no usable fp32"},
      {"step " + kSample + " --model llama3-70b --baseline nccl", "--baseline nccl is not among"},
      {"step /nonexistent/r.json --model llama3-70b", "/nonexistent/r.json"},
  };
  for (const Case& c : cases) {
    CliResult r = run_arbench(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, c.says)) << c.args << "\n" << r.output;
  }
}

}  // namespace
