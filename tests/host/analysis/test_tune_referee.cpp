// The referee's verdict in tune (docs/regression.md, "arbench against the engines"): at each point
// where a peer ran as its engine runs it, arbench's best own variant against the engine's choice.
// The engine's choice is the fastest of the peer's cases its engine may run: FlashInfer's PCIe-IPC
// seed or any schedule its tuner may pick, the fusion as vLLM runs it (not FlashInfer's own rule,
// not a forced kernel), vLLM's custom all-reduce only where vLLM dispatches it. NCCL is neither
// side; a tie within the noise meets the goal, a significantly faster peer does not.
#include <gtest/gtest.h>

#include "analysis/tune.hpp"
#include "analysis/tune_report.hpp"
#include "tests/host/results/synthetic_result.hpp"

namespace arbench {
namespace {

using nlohmann::json;
using namespace testing;  // the synthetic result's helpers: ar_name, fused_name, jittered, make_result

constexpr std::uint64_t k1K = 1024, k64K = 64 * 1024;

// 8 GPUs over PCIe. At 1 KiB arbench's oneshot-pull (10 us) beats every peer; at 64 KiB the
// PCIe-IPC seed (50) loses to arbench's twoshot (40) but its tuner's staged schedule (30) wins.
// NCCL is fastest of all at 64 KiB (20) and must not stand for arbench. vllm-custom (5 us) is off at
// 8 GPUs without NVLink and must not stand for vLLM; at 2 GPUs it runs, and arbench's median is a
// hair slower but within the noise: a tie, which meets the goal.
json fixture() {
  unsigned seed = 1;
  std::vector<SynthCase> cases = {
      {ar_name("oneshot-pull", 8, k1K), jittered(10, 0.01, 30, seed++)},
      {ar_name("flashinfer-pcie-ipc", 8, k1K), jittered(14, 0.01, 30, seed++)},
      {ar_name("flashinfer-pcie-ipc[staged]", 8, k1K), jittered(13, 0.01, 30, seed++)},
      {ar_name("vllm-custom", 8, k1K), jittered(5, 0.01, 30, seed++)},
      {ar_name("twoshot", 8, k64K), jittered(40, 0.01, 30, seed++)},
      {ar_name("nccl", 8, k64K), jittered(20, 0.01, 30, seed++)},
      {ar_name("flashinfer-pcie-ipc", 8, k64K), jittered(50, 0.01, 30, seed++)},
      {ar_name("flashinfer-pcie-ipc[staged]", 8, k64K), jittered(30, 0.01, 30, seed++)},
      {ar_name("oneshot-pull", 2, k1K), jittered(10, 0.01, 30, seed++)},
      {ar_name("vllm-custom", 2, k1K), jittered(9.95, 0.01, 30, seed++)},
      {fused_name("fused-oneshot", 8, 256, 8192), jittered(100, 0.01, 30, seed++)},
      {fused_name("flashinfer-fused", 8, 256, 8192), jittered(120, 0.01, 30, seed++)},
      {fused_name("flashinfer-fused[flashinfer]", 8, 256, 8192), jittered(60, 0.01, 30, seed++)},
      {fused_name("flashinfer-fused[twoshot]", 8, 256, 8192), jittered(60, 0.01, 30, seed++)},
  };
  return make_result(cases);
}

const RefereePoint* find(const TuneReport& rep, int world, std::uint64_t size, const std::string& peer) {
  for (const RefereePoint& p : rep.referee)
    if (p.world == world && p.size == size && p.peer == peer) return &p;
  return nullptr;
}

TEST(TuneReferee, EachPeerAsItsEngineRunsItAgainstArbenchsBest) {
  const TuneReport rep = tune_results(parse_result_json(fixture(), "r.json"), 0.01);
  ASSERT_EQ(rep.referee.size(), 4u);
  const RefereePoint* small = find(rep, 8, k1K, "flashinfer-pcie-ipc");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->engine_case, "flashinfer-pcie-ipc[staged]");  // the tuner's pick, not the seed
  EXPECT_EQ(small->arbench_best, "oneshot-pull");
  EXPECT_TRUE(small->significant);
  EXPECT_TRUE(small->met());
  const RefereePoint* big = find(rep, 8, k64K, "flashinfer-pcie-ipc");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->engine_case, "flashinfer-pcie-ipc[staged]");
  EXPECT_EQ(big->arbench_best, "twoshot");  // not nccl, faster still
  EXPECT_FALSE(big->met());
  EXPECT_EQ(find(rep, 8, k1K, "vllm-custom"), nullptr);  // vLLM turns it off at 8 PCIe GPUs
  const RefereePoint* two = find(rep, 2, k1K, "vllm-custom");
  ASSERT_NE(two, nullptr);
  EXPECT_GT(two->arbench_us, two->engine_us);
  EXPECT_FALSE(two->significant);
  EXPECT_TRUE(two->met());
  const RefereePoint* fused = find(rep, 8, 256, "flashinfer-fused");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->engine_case, "flashinfer-fused");  // vLLM's rule; [flashinfer] and forced are no engine's choice
  EXPECT_EQ(fused->arbench_best, "fused-oneshot");
  EXPECT_EQ(fused->hidden, 8192);
  EXPECT_TRUE(fused->met());
}

TEST(TuneReferee, ReportAndTableSayWhereTheGoalIsMissed) {
  const TuneReport rep = tune_results(parse_result_json(fixture(), "r.json"), 0.01);
  const std::string text = format_tune(rep, ReportFormat::text);
  EXPECT_NE(text.find("arbench against each peer as its engine runs it"), std::string::npos) << text;
  EXPECT_NE(text.find("goal: met at 3 of 4 points"), std::string::npos) << text;
  EXPECT_NE(text.find("allreduce bf16, 8 GPUs, 64 KiB: twoshot "), std::string::npos) << text;
  EXPECT_NE(text.find("% slower than flashinfer-pcie-ipc[staged]"), std::string::npos) << text;
  const json table = dispatch_table_json(rep);
  EXPECT_EQ(table["referee"]["met"], 3);
  EXPECT_EQ(table["referee"]["of"], 4);
  ASSERT_EQ(table["referee"]["points"].size(), 4u);
  for (const json& p : table["referee"]["points"])
    EXPECT_EQ(p["met"], !(p["world"] == 8 && p["size"] == k64K)) << p.dump();
}

TEST(TuneReferee, NoPeerNoSection) {
  const json j = make_result({{ar_name("oneshot-pull", 8, k1K), jittered(10, 0.01, 30, 1)},
                                       {ar_name("nccl", 8, k1K), jittered(20, 0.01, 30, 2)}});
  const TuneReport rep = tune_results(parse_result_json(j, "r.json"), 0.01);
  EXPECT_TRUE(rep.referee.empty());
  EXPECT_EQ(format_tune(rep, ReportFormat::text).find("as its engine runs it:"), std::string::npos);
  EXPECT_FALSE(dispatch_table_json(rep).contains("referee"));
}

}  // namespace
}  // namespace arbench
