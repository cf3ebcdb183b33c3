// Cases that need an environment of their own run in a child process started with it
// (bench/run/process/env_child.hpp): the parent never calls setenv while NCCL's or MPI's threads live. A
// fake child (a shell script) stands in for arbench: it checks it got the variables and its role,
// and writes a result file the parent reads back whole. A child that writes nothing, crashes or
// hangs fails its cases with the reason (the hang killed at its bound). Before, a forced
// configuration set NCCL_ALGO/NCCL_PROTO with setenv in the running process.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "run/process/env_child.hpp"

namespace arbench {
namespace {

const std::string kCase = "allreduce/nccl[ring/ll]/bf16/gpus:2/bytes:1024";

// A child script: `body` runs with the child's environment; it may write $ARBENCH_CHILD_OUT.
std::string script(const std::string& name, const std::string& body) {
  const std::string path = ::testing::TempDir() + "arbench-fake-child-" + name + "-" + std::to_string(::getpid());
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

const char* kWritesResult = R"(
[ "$NCCL_ALGO" = Ring ] && [ "$NCCL_PROTO" = LL ] || { echo "no NCCL variables" >&2; exit 5; }
name=$(head -n 1 "$ARBENCH_CHILD_CASES")
cat > "$ARBENCH_CHILD_OUT" <<JSON
{"benchmarks": [], "arbench": {"cases": [{"name": "$name", "status": "ok", "reason": "", "checked": true,
 "samples_us": [9, 10, 11], "median_us": 10, "p10_us": 9.2, "p90_us": 10.8, "p99_us": 10.98,
 "algbw_GBps": 0.1, "busbw_GBps": 0.1, "wrong_elements": 0, "start_skew_us": 0.5, "floor_us": 3,
 "discarded_samples": 0, "settings": {"NCCL_ALGO": "Ring"}, "data_path": "NCCL P2P"}], "skipped": []}}
JSON)";

TEST(EnvChild, TheChildGetsItsEnvironmentAndItsResultsComeBackWhole) {
  EnvChildRequest req;
  req.argv = {script("ok", kWritesResult)};
  req.env = {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}};
  req.cases = {kCase};
  const EnvChildResult r = run_cases_in_child(req);
  EXPECT_EQ(r.failure, "");
  ASSERT_EQ(r.results.count(kCase), 1u);
  const CaseResult& c = r.results.at(kCase);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.c.variant, "nccl[ring/ll]");
  EXPECT_EQ(c.samples_us.size(), 3u);
  EXPECT_DOUBLE_EQ(c.latency_us.median, 10);
  EXPECT_EQ(c.data_path, "NCCL P2P");
  EXPECT_EQ(std::getenv("NCCL_ALGO"), nullptr) << "the parent's environment is untouched";
}

TEST(EnvChild, AChildThatWritesNothingFailsItsCasesWithItsLog) {
  EnvChildRequest req;
  req.argv = {script("silent", "echo 'NCCL WARN no algorithm/protocol available' >&2; exit 3")};
  req.env = {{"NCCL_ALGO", "Tree"}};
  req.cases = {kCase};
  const EnvChildResult r = run_cases_in_child(req);
  EXPECT_TRUE(r.results.empty());
  EXPECT_NE(r.failure.find("NCCL_ALGO=Tree"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("exit 3"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("no algorithm/protocol available"), std::string::npos) << "its log's last lines";
}

TEST(EnvChild, AHungChildIsKilledAtItsBound) {
  EnvChildRequest req;
  req.argv = {script("hung", "sleep 60")};
  req.env = {{"NCCL_ALGO", "Ring"}};
  req.cases = {kCase};
  req.bound_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  const EnvChildResult r = run_cases_in_child(req);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
  EXPECT_NE(r.failure.find("was killed"), std::string::npos) << r.failure;
}

TEST(EnvChild, OneChildPerEnvironmentRunsAllItsCases) {
  const std::string counter = ::testing::TempDir() + "arbench-child-starts-" + std::to_string(::getpid());
  std::filesystem::remove(counter);
  const std::string body = "echo start >> " + counter + "\n" + kWritesResult;
  Case c;
  c.variant = "nccl[ring/ll]";
  c.world = 2;
  c.bytes = 1024;
  EnvChildren children({{c, {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}}}}, {script("counted", body)}, 1.0);
  const CaseResult first = children.run(c, {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}});
  EXPECT_TRUE(first.ok) << first.reason;
  const CaseResult again = children.run(c, {{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}});
  EXPECT_TRUE(again.ok);
  std::ifstream in(counter);
  int starts = 0;
  for (std::string l; std::getline(in, l);) ++starts;
  EXPECT_EQ(starts, 1) << "one child per environment";
}

}  // namespace
}  // namespace arbench
