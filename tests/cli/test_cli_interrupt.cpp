// Ctrl-C during `arbench run`: the first SIGINT stops after the current case, writes the JSON
// and CSV of the finished cases (the JSON marked incomplete, valid against the schema), says
// what it did and exits 130; a second SIGINT exits at once, writing the cases finished by then.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "results/report.hpp"
#include "spawn_util.hpp"

namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "arbench-sigint-" + name + "-" + std::to_string(::getpid());
}

// 9 cases of 20000 samples each (0.1 s or more): the run is far from over when the first row
// (kFirstRow) appears.
Child nine_cases(const std::string& out, const std::string& csv) {
  return spawn_arbench("run --backend host --variants reference --gpus 2,4,8 --dtype bf16,fp16,fp32 -b 1K -e 1K "
                       "--samples 20000 --warmup 0 --pipelined-ops 0 --out " + out + " --csv " + csv);
}
constexpr const char* kFirstRow = "reference/bf16/gpus:2/bytes:1024";

std::size_t line_count(const std::string& path) {
  std::ifstream in(path);
  std::size_t lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  return lines;
}

}  // namespace

TEST(CliInterrupt, CtrlCWritesTheFinishedCasesAndExits130) {
  const std::string out = temp_path("r.json"), csv = temp_path("r.csv");
  Child c = nine_cases(out, csv);
  ASSERT_TRUE(read_until(c, kFirstRow, 120)) << c.output;
  kill(c.pid, SIGINT);
  EXPECT_EQ(finish(c, 120), 130) << c.output;
  EXPECT_NE(c.output.find("stopping after the current case"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("STOPPED: interrupted (Ctrl-C) after"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("wrote " + out + " (incomplete"), std::string::npos) << c.output;

  std::ifstream in(out);
  ASSERT_TRUE(in) << out;
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto problems = arbench::validate_result_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  const auto& inc = doc["arbench"]["incomplete"];
  EXPECT_EQ(inc["reason"], "interrupted (Ctrl-C)");
  EXPECT_EQ(inc["cases_planned"], 9);
  const std::size_t run = doc["arbench"]["cases"].size();
  EXPECT_GE(run, 1u);
  EXPECT_LT(run, 9u);
  EXPECT_EQ(inc["cases_run"], run);
  EXPECT_EQ(inc["not_run"].size(), 9 - run);
  EXPECT_EQ(doc["benchmarks"].size(), run);  // no entries for the cases never started
  for (const auto& k : doc["arbench"]["cases"]) EXPECT_EQ(k["status"], "ok") << k.dump();

  EXPECT_EQ(line_count(csv), run + 1);
  std::remove(out.c_str());
  std::remove(csv.c_str());
}

// The second Ctrl-C does not wait for the case in progress (here one that would run for
// minutes), and still writes what finished: nothing here, marked incomplete, valid.
TEST(CliInterrupt, SecondCtrlCExitsAtOnceAndWritesTheFinishedCases) {
  const std::string out = temp_path("second.json");
  Child c = spawn_arbench("run --backend host --variants reference --gpus 2 -b 1K -e 1K --samples 10000000 "
                          "--warmup 0 --pipelined-ops 0 --out " + out);
  ASSERT_TRUE(read_until(c, "per case:", 60)) << c.output;  // the banner: the case is starting
  usleep(300000);
  kill(c.pid, SIGINT);
  ASSERT_TRUE(read_until(c, "stopping after the current case", 10)) << c.output;
  kill(c.pid, SIGINT);
  EXPECT_EQ(finish(c, 20), 130) << c.output;
  EXPECT_NE(c.output.find("interrupted twice: writing the finished cases, then exiting"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("wrote " + out + " (incomplete"), std::string::npos) << c.output;
  std::ifstream in(out);
  ASSERT_TRUE(in) << "the second Ctrl-C writes what finished";
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto problems = arbench::validate_result_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_EQ(doc["arbench"]["incomplete"]["reason"], "interrupted (Ctrl-C twice)");
  EXPECT_EQ(doc["arbench"]["incomplete"]["cases_run"], 0);
  EXPECT_EQ(doc["arbench"]["incomplete"]["not_run"].size(), 1u);
  std::remove(out.c_str());
}

// Ctrl-C twice after some cases finished: they are in the file.
TEST(CliInterrupt, SecondCtrlCKeepsTheFinishedCases) {
  const std::string out = temp_path("twice.json"), csv = temp_path("twice.csv");
  Child c = nine_cases(out, csv);
  ASSERT_TRUE(read_until(c, kFirstRow, 120)) << c.output;
  kill(c.pid, SIGINT);
  ASSERT_TRUE(read_until(c, "stopping after the current case", 10)) << c.output;
  kill(c.pid, SIGINT);
  EXPECT_EQ(finish(c, 60), 130) << c.output;
  std::ifstream in(out);
  ASSERT_TRUE(in) << c.output;
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_TRUE(arbench::validate_result_json(doc).empty());
  const std::size_t run = doc["arbench"]["cases"].size();
  EXPECT_GE(run, 1u);
  EXPECT_LT(run, 9u);
  EXPECT_EQ(doc["arbench"]["incomplete"]["cases_run"], run);
  EXPECT_EQ(line_count(csv), run + 1);
  std::remove(out.c_str());
  std::remove(csv.c_str());
}
