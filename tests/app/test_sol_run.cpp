// The speed-of-light floor through a whole run (bench/run/run_sol.hpp): every variant of the
// built-in registry has an all-reduce traffic pattern (GPU-only ones included: nccl, nccl-symm and
// their configurations), and a host run gives every case a floor priced from the CPU threads'
// patterns, labelled CPU timing, in the JSON and its provenance, below what the twins reach;
// --no-sol gives none.
#include <gtest/gtest.h>

#include "sol/traffic_check.hpp"
#include "sweep_json.hpp"

namespace arbench::testing {
namespace {

TEST(Registry, EveryVariantHasATraffic) {
  const auto gaps = sol::traffic_gaps(Registry::builtin());
  for (const auto& g : gaps) ADD_FAILURE() << g;
  const VariantEntry* nccl = Registry::builtin().find("nccl[tree/ll]");
  ASSERT_NE(nccl, nullptr);
  EXPECT_NE(nccl->traffic, nullptr);
}

TEST(SolRun, AHostRunGivesEveryCaseACpuTimedFloor) {
  RunConfig cfg = allreduce_sweep("host", 4, {"oneshot-pull", "ring", "twoshot"});
  cfg.min_bytes = cfg.max_bytes = 4096;
  cfg.samples = 3;
  cfg.warmup = 1;
  cfg.pipelined_ops = 0;
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(sweep_to_json(cfg, "sol-host", doc));
  const auto& sol = doc["arbench"]["provenance"]["sol"];
  EXPECT_NE(sol["source"].get<std::string>().find("CPU timing"), std::string::npos) << sol.dump();
  EXPECT_EQ(sol["rates"]["timing"], "cpu");
  ASSERT_EQ(doc["arbench"]["cases"].size(), 3u);
  for (const auto& c : doc["arbench"]["cases"]) {
    ASSERT_TRUE(c.contains("sol_us")) << c["name"] << ": " << c.value("sol", nlohmann::json()).dump();
    EXPECT_GT(c["sol_us"].get<double>(), 0);
    EXPECT_NEAR(c["pct_of_sol"].get<double>(), 100 * c["sol_us"].get<double>() / c["median_us"].get<double>(), 1e-9);
    EXPECT_EQ(c["sol"]["timing"], "cpu");
    EXPECT_EQ(c["sol"]["below_floor"], c["pct_of_sol"].get<double>() > 100);
    EXPECT_FALSE(c["sol"]["phases"].empty());
  }
  for (const auto& b : doc["benchmarks"]) EXPECT_TRUE(b.contains("sol_us")) << b["name"];  // a counter too
}

// The host backend's floor must stay below what its twins reach: a case below its floor is reported
// as a timing or pattern error. With the hop measured while the pattern's copies ran (CPU threads
// sharing 2 cores: several us), the 2-rank twoshot and oneshot-pull twins at 1K and 2K beat their
// floors in the default host sweep; these are the cases nearest their floors there.
TEST(SolRun, NoHostCaseBeatsItsFloorAtTwoRanks) {
  RunConfig cfg = allreduce_sweep("host", 2, {"twoshot", "oneshot-pull", "ring", "island-twoshot"});
  cfg.min_bytes = 1024;
  cfg.max_bytes = 2048;
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(sweep_to_json(cfg, "sol-host-floor", doc));
  ASSERT_EQ(doc["arbench"]["cases"].size(), 8u);
  for (const auto& c : doc["arbench"]["cases"]) {
    ASSERT_TRUE(c.contains("sol_us")) << c["name"];
    EXPECT_FALSE(c["sol"]["below_floor"].get<bool>())
        << c["name"] << ": " << c["median_us"] << " us, floor " << c["sol_us"] << " us, hop " << c["sol"]["hop_us"]
        << " us x " << c["sol"]["round_trips"];
  }
}

TEST(SolRun, NoSolMeansNoFloorAndNoProbe) {
  RunConfig cfg = allreduce_sweep("host", 2, {"oneshot-pull"});
  cfg.min_bytes = cfg.max_bytes = 1024;
  cfg.samples = 2;
  cfg.pipelined_ops = 0;
  cfg.sol = false;
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(sweep_to_json(cfg, "sol-off", doc));
  EXPECT_EQ(doc["arbench"]["provenance"]["sol"]["source"], "none: --no-sol");
  EXPECT_FALSE(doc["arbench"]["provenance"]["sol"].contains("rates"));
  for (const auto& c : doc["arbench"]["cases"]) EXPECT_FALSE(c.contains("sol_us"));
}

}  // namespace
}  // namespace arbench::testing
