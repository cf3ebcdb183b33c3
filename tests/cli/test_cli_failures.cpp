// A run whose cases fail never hangs and always leaves its results: `arbench run --backend host`
// with a planted peer that never arrives (the test switch ARBENCH_TEST_ABSENT_RANK,
// docs/developing.md) exits 1 within the bound and writes a valid JSON naming the failed cases,
// beside the cases that passed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "results/report.hpp"

namespace {

TEST(CliFailures, ANeverArrivingPeerFailsItsCasesAndTheRunLeavesValidJson) {
  const std::string out = testing::TempDir() + "arbench-absent-" + std::to_string(::getpid()) + ".json";
  setenv("ARBENCH_TEST_ABSENT_RANK", "3", 1);
  const auto t0 = std::chrono::steady_clock::now();
  const CliResult r = run_arbench("run --backend host --gpus 2,4 --variants oneshot-pull,twoshot -b 1K -e 2K --samples 2 "
                                  "--warmup 1 --pipelined-ops 0 --timeout 0.5 --family allreduce --quiet --out " + out);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  unsetenv("ARBENCH_TEST_ABSENT_RANK");

  EXPECT_EQ(r.exit_code, 1) << r.output;
  // 4 failing cases, each ending at its first bounded wait (0.5 s), plus start-up: far below the
  // host fabric's last-resort bound (4 x timeout + 60 s, then the process exits without a JSON).
  EXPECT_LT(took, 30.0) << r.output;
  EXPECT_NE(r.output.find("ARBENCH_TEST_ABSENT_RANK=3"), std::string::npos) << "the switch must announce itself";

  std::ifstream in(out);
  ASSERT_TRUE(in.good()) << "no JSON written: " << r.output;
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto problems = arbench::validate_result_json(doc);
  EXPECT_TRUE(problems.empty()) << problems.front();
  int ok = 0, failed = 0;
  for (const auto& c : doc["arbench"]["cases"]) {
    const std::string name = c["name"];
    if (c["world"] == 2) {  // rank 3 does not exist at world 2: these cases are unaffected
      EXPECT_EQ(c["status"], "ok") << name << ": " << c["reason"];
      ++ok;
    } else {
      EXPECT_EQ(c["status"], "failed") << name;
      EXPECT_NE(c["reason"].get<std::string>().find("rank 3 never arrived"), std::string::npos) << c["reason"];
      EXPECT_NE(name.find("/gpus:4/bytes:"), std::string::npos) << name;
      ++failed;
    }
  }
  EXPECT_EQ(ok, 4);
  EXPECT_EQ(failed, 4);
  std::remove(out.c_str());
}

TEST(CliFailures, ABadTestSwitchIsAUsageError) {
  setenv("ARBENCH_TEST_ABSENT_RANK", "nine", 1);
  const CliResult r = run_arbench("run --backend host --gpus 2 --variants reference -b 1K -e 1K --quiet");
  unsetenv("ARBENCH_TEST_ABSENT_RANK");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ARBENCH_TEST_ABSENT_RANK=nine"), std::string::npos) << r.output;
}

}  // namespace
