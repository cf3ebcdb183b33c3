// `arbench run --host-threads T`: the block-faithful host twins end to end, and the option's
// validation (exit 2 before any work, naming the value and what is allowed).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.hpp"

TEST(CliHostThreads, RunsTheBlockFaithfulTwins) {
  const std::string out = testing::TempDir() + "arbench-host-threads-" + std::to_string(::getpid()) + ".json";
  CliResult r = run_arbench("run --backend host --host-threads 4 --gpus 2,3 -b 1K -e 16K --tokens 1,3 --hidden 200 "
                            "--samples 2 --warmup 1 --pipelined-ops 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" 0 failed"), std::string::npos) << r.output;
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["arbench"]["config"]["host_threads"], 4);
  int custom = 0;
  for (const auto& c : doc["arbench"]["cases"]) {
    EXPECT_EQ(c["status"], "ok") << c.dump();
    if (c["settings"].contains("threads")) {  // the custom kernels' twins (not `reference`)
      EXPECT_EQ(c["settings"]["threads"], "4") << c["name"];
      ++custom;
    }
  }
  // worlds x sizes x (3 symm + ring + 2 island), worlds x tokens x (3 fused + 2 fused island)
  EXPECT_EQ(custom, 2 * 5 * 6 + 2 * 2 * 5);
}

TEST(CliHostThreads, InvalidValuesExitTwoBeforeAnyWork) {
  for (const char* bad : {"600", "-1"}) {
    CliResult r = run_arbench(std::string("run --backend host --host-threads ") + bad + " --gpus 2 -b 1K -e 1K");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(std::string("--host-threads: ") + bad + " is out of range: 0 <= T <= 512"), std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("cases run"), std::string::npos) << r.output;
  }
  // 3 threads cannot share the RMSNorm's 512 lanes evenly: the fused family refuses it...
  CliResult r = run_arbench("run --backend host --host-threads 3 --gpus 2 -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--host-threads 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1, 2, 4, 8, 16, 32, 64, 128, 256, 512"), std::string::npos) << r.output;
  // ...the all-reduce kernels take it.
  r = run_arbench("list --backend host --host-threads 3 --family allreduce --gpus 2 -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}
