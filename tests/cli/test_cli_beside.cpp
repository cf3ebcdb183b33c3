// `arbench run --beside` on the host backend (docs/method.md, "Beside a model kernel"): every case
// of both families records the SMs it takes and both beside-load figures (its latency under the
// load, the load's slowdown), in the JSON and the CSV, with the console's SMs column; a bad value
// is refused before any work (exit 2), and so is --beside under a launcher's several processes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

std::string temp(const std::string& name) {
  return testing::TempDir() + "arbench-beside-" + name + "-" + std::to_string(::getpid());
}

TEST(CliBeside, EveryHostCaseRecordsSmsAndBothFigures) {
  const std::string json = temp("run.json"), csv = temp("run.csv");
  const CliResult r = run_arbench("run --backend host --beside compute --gpus 2 -b 1K -e 2K --tokens 1 --samples 2 "
                                  "--warmup 0 --pipelined-ops 1 --out " + json + " --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("SMs  "), std::string::npos) << r.output;  // the console's column
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& cases = doc["arbench"]["cases"];
  ASSERT_EQ(cases.size(), 25u);  // both families, every host variant: 10 x 2 sizes + 5 fused
  bool fused = false;
  for (const auto& c : cases) {
    ASSERT_EQ(c["status"], "ok") << c.dump();
    fused = fused || c["family"] == "allreduce_rmsnorm";
    EXPECT_TRUE(c["sms"].is_number_integer()) << c["name"] << ": " << c["sms_basis"];
    const auto& b = c["beside"];
    ASSERT_TRUE(b.is_object()) << c["name"];
    EXPECT_EQ(b["load"], "compute");
    EXPECT_EQ(b["timing"], "cpu");
    EXPECT_GT(b["median_us"].get<double>(), 0) << c["name"];
    EXPECT_GT(b["background_alone_per_s"].get<double>(), 0) << c["name"];
    EXPECT_TRUE(b["background_slowdown"].is_number()) << c["name"];
  }
  EXPECT_TRUE(fused);
  EXPECT_EQ(doc["arbench"]["config"]["beside"], "compute");
  std::ifstream cin(csv);
  std::string header, row;
  std::getline(cin, header);
  std::getline(cin, row);
  EXPECT_TRUE(header.ends_with(",sms,beside_median_us,background_slowdown")) << header;
  EXPECT_FALSE(row.ends_with(",,")) << row;  // the figures are there
  std::remove(json.c_str());
  std::remove(csv.c_str());
}

TEST(CliBeside, ABadValueIsRefusedBeforeAnyWork) {
  const CliResult r = run_arbench("run --backend host --beside gemm --gpus 2 -b 1K -e 1K");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--beside"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("compute"), std::string::npos) << r.output;  // what it takes
  EXPECT_EQ(r.output.find("cases run"), std::string::npos) << r.output;
}

}  // namespace
