// The pattern probe on real GPUs (bench/topo/gpu/pattern_probe.cu) and the doctor's collapse probe
// on it: every flow of a pattern gets a plausible rate, a flow without P2P access or out of range
// is null, a hop is measured idle and under the load, a spent budget skips the patterns left, and `arbench doctor` on the box runs the probe
// and says pull or push. Skips below two GPUs with P2P.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "doctor/collapse.hpp"
#include "tests/cli/cli_util.hpp"
#include "tests/gpu/gpu_test_util.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/gpu/pattern_probe.hpp"

namespace arbench::topo {
namespace {

PatternProbeOptions small() {
  PatternProbeOptions o;
  o.bytes = 4 << 20;
  o.repetitions = 2;
  return o;
}

// Whether GPU 0 can reach GPU 1 (cudaDeviceCanAccessPeer): the patterns between them need P2P.
bool gpu0_reaches_gpu1(const std::vector<CudaGpu>& gpus) {
  int can = 0;
  cudaDeviceCanAccessPeer(&can, gpus[0].ordinal, gpus[1].ordinal);
  return can != 0;
}

TEST(PatternProbeGpu, EveryFlowOfAPatternGetsARate) {
  ARB_REQUIRE_GPUS(2);
  const auto gpus = list_cuda_gpus();
  if (!gpu0_reaches_gpu1(gpus)) GTEST_SKIP() << "GPUs 0 and 1 have no P2P access";
  const std::vector<Pattern> patterns = {
      {"write 0->1", {{0, 1, false}}},
      {"read 0->1", {{0, 1, true}}},
      {"both ways at once", {{0, 1, false}, {1, 0, false}}},
      {"a flow to nowhere", {{0, 99, false}, {0, 1, true}}},
  };
  const auto r = run_pattern_probe(gpus, patterns, small());
  ASSERT_EQ(r.size(), patterns.size());
  for (std::size_t p = 0; p < 3; ++p) {
    ASSERT_FALSE(r[p].skipped) << *r[p].skipped;
    for (const auto& g : r[p].gbps) {
      ASSERT_TRUE(g) << r[p].name;
      EXPECT_GT(*g, 1.0) << r[p].name;     // bands as tests/gpu/topo/test_topo_gpu.cpp's
      EXPECT_LT(*g, 1000.0) << r[p].name;
    }
  }
  EXPECT_FALSE(r[3].gbps[0]);  // GPU 99 does not exist: the flow is left out
  EXPECT_TRUE(r[3].gbps[1]);
}

TEST(PatternProbeGpu, AHopIsMeasuredIdleAndUnderTheLoad) {
  ARB_REQUIRE_GPUS(2);
  const auto gpus = list_cuda_gpus();
  if (!gpu0_reaches_gpu1(gpus)) GTEST_SKIP() << "GPUs 0 and 1 have no P2P access";
  PatternProbeOptions o = small();
  o.copy_engine = true;
  o.latency_rounds = 200;
  const std::vector<Pattern> patterns = {{"both ways", {{0, 1, false}, {1, 0, false}}, {{0, 1}}}};
  const auto r = run_pattern_probe(gpus, patterns, o);
  ASSERT_EQ(r.size(), 1u);
  ASSERT_FALSE(r[0].skipped) << *r[0].skipped;
  ASSERT_EQ(r[0].idle_latency_us.size(), 1u);
  ASSERT_TRUE(r[0].idle_latency_us[0]) << (r[0].notes.empty() ? "" : r[0].notes.back());
  EXPECT_GT(*r[0].idle_latency_us[0], 0.0);
  EXPECT_LT(*r[0].idle_latency_us[0], 100.0);  // a one-way PCIe flag hop is a few us
  ASSERT_EQ(r[0].latency_us.size(), 1u);       // under the load: null only with a note
  if (!r[0].latency_us[0]) {
    EXPECT_FALSE(r[0].notes.empty());
  }
  std::cout << "hop 0->1: idle " << *r[0].idle_latency_us[0] << " us, loaded "
            << (r[0].latency_us[0] ? std::to_string(*r[0].latency_us[0]) : "null") << " us\n";
}

TEST(PatternProbeGpu, ASpentBudgetSkipsThePatternsLeft) {
  ARB_REQUIRE_GPUS(2);
  PatternProbeOptions o = small();
  o.budget_s = 1e-9;
  const std::vector<Pattern> patterns = {{"first", {{0, 1, false}}}, {"second", {{0, 1, false}}}};
  const auto r = run_pattern_probe(list_cuda_gpus(), patterns, o);
  ASSERT_EQ(r.size(), 2u);
  ASSERT_TRUE(r[1].skipped);
  EXPECT_NE(r[1].skipped->find("time budget"), std::string::npos) << *r[1].skipped;
}

TEST(PatternProbeGpu, DoctorRunsTheCollapseProbe) {
  ARB_REQUIRE_GPUS(2);
  const CliResult r = run_arbench("doctor --json --probe-bytes 4M --probe-budget 60");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 4 || r.exit_code == 5) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  const auto& collapse = j["checks"][8];
  ASSERT_EQ(collapse["id"], "collapse");
  std::cout << "collapse: " << collapse["summary"].get<std::string>() << "\n";
  if (collapse["verdict"] == "could not read") GTEST_SKIP() << collapse["summary"];
  EXPECT_GT(collapse["data"]["pairs"].get<int>(), 0);
  EXPECT_TRUE(j["findings"]["pull_beats_push"].is_boolean());
}

}  // namespace
}  // namespace arbench::topo
