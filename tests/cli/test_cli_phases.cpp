// --phases and --skew from the command line (host backend; docs/latency-breakdown.md): the run of
// the issue writes a `phases` object for every case, monotonic per rank and adding up to the op's
// time within the clock's resolution; the console prints the breakdown; --skew 0,20 names its
// cases .../skew:20 and reports the latency after the last arrival, between 0 and the latency.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.hpp"
#include "phase_json_checks.hpp"

namespace {

std::string temp_path(const std::string& name) {
  return testing::TempDir() + "arbench-phases-" + name + "-" + std::to_string(::getpid());
}

nlohmann::json run_json(const std::string& args, const std::string& out, CliResult* console = nullptr) {
  CliResult r = run_arbench("run --backend host --samples 3 --warmup 1 --pipelined-ops 0 " + args + " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (console) *console = r;
  std::ifstream in(out);
  nlohmann::json doc = nlohmann::json::parse(in);
  std::remove(out.c_str());
  return doc;
}

}  // namespace

TEST(CliPhases, EveryCaseOfTheHostSweepHasASoundTimeline) {
  CliResult console;
  const nlohmann::json doc = run_json("--phases --gpus 4 -b 1K -e 64K --variants 'oneshot-*,twoshot,ring' "
                                      "--family allreduce", temp_path("p.json"), &console);
  const auto& cases = doc["arbench"]["cases"];
  EXPECT_EQ(cases.size(), 4u * 7);  // 4 variants x 1K..64K
  for (const auto& c : cases) expect_sound_phases(c);
  EXPECT_EQ(doc["arbench"]["config"]["phases"], true);
  EXPECT_NE(console.output.find("phases: median of recorded ops, us"), std::string::npos) << console.output;
  EXPECT_NE(console.output.find(" lat after-last    entry  staging     wait   reduce     exit\n"), std::string::npos)
      << console.output;
  EXPECT_NE(console.output.find("allreduce/ring/bf16/gpus:4/bytes:65536 "), std::string::npos) << console.output;
}

TEST(CliPhases, SkewNamesItsCasesAndReportsTheLatencyAfterTheLastArrival) {
  const nlohmann::json doc =
      run_json("--skew 0,20 --gpus 4 -b 1K -e 1K --variants 'oneshot-push,oneshot-pull' --family allreduce",
               temp_path("s.json"));
  int skewed = 0;
  for (const auto& c : doc["arbench"]["cases"]) {
    const std::string name = c["name"];
    if (c["skew_us"].get<double>() == 0) {
      EXPECT_EQ(name.find("skew"), std::string::npos) << name;
      EXPECT_FALSE(c.contains("phases")) << name;
      continue;
    }
    ++skewed;
    EXPECT_EQ(name.substr(name.size() - 8), "/skew:20") << name;
    expect_sound_phases(c);
    const auto& p = c["phases"];
    EXPECT_GE(p["after_last_arrival_us"].get<double>(), 0.0) << name;
    EXPECT_LE(p["after_last_arrival_us"].get<double>(), p["latency_us"].get<double>()) << name;
    EXPECT_GE(c["p10_us"].get<double>(), 20.0) << name << ": the last rank was held 20 us inside every sample";
  }
  EXPECT_EQ(skewed, 2);
}

TEST(CliPhases, ABadSkewIsAUsageError) {
  for (const char* bad : {"-3", "abc", "2e7"}) {
    CliResult r = run_arbench(std::string("run --backend host --gpus 2 -b 1K -e 1K --skew 0,") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("--skew"), std::string::npos) << r.output;
  }
}
