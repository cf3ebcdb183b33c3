// --skew (docs/latency-breakdown.md): rank r starts r/(N-1) of the skew late; a skewed case is
// named .../skew:US, always records its phase timeline, and reports its latency after the last
// rank arrived, which lies between 0 and the usual latency.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "arbench/core/errors.hpp"
#include "measure/harness.hpp"
#include "sweep/sweep.hpp"
#include "tests/host/measure/harness_test_util.hpp"
#include "tests/host/measure/phase_checks.hpp"

namespace arbench {
namespace {

TEST(Skew, CaseNamesCarryTheSkewAndParseBack) {
  Case c{"oneshot-push", Family::allreduce, DType::bf16, 4, 1024};
  EXPECT_EQ(c.name(), "allreduce/oneshot-push/bf16/gpus:4/bytes:1024");  // skew 0: the name of old
  c.skew_us = 2;
  EXPECT_EQ(c.name(), "allreduce/oneshot-push/bf16/gpus:4/bytes:1024/skew:2");
  c.skew_us = 0.5;
  c.in_place = true;
  EXPECT_EQ(c.name(), "allreduce/oneshot-push/bf16/gpus:4/bytes:1024/inplace/skew:0.5");
  EXPECT_EQ(Case::parse(c.name()), c);
  std::string why;
  EXPECT_FALSE(Case::parse("allreduce/oneshot-push/bf16/gpus:4/bytes:1024/skew:0", &why));
  EXPECT_NE(why.find("skew"), std::string::npos) << why;
  EXPECT_FALSE(Case::parse("allreduce/oneshot-push/bf16/gpus:4/bytes:1024/skew:-1"));
  EXPECT_FALSE(Case::parse("allreduce/oneshot-push/bf16/gpus:4/bytes:1024/skew:x"));
}

TEST(Skew, TheSweepRunsEveryCaseAtEverySkew) {
  RunConfig cfg = testing::quick_config();
  cfg.gpus = {4};
  cfg.min_bytes = cfg.max_bytes = 1024;
  cfg.families = {Family::allreduce};
  cfg.variants = {"oneshot-pull", "oneshot-push"};
  cfg.skews_us = {0, 20};
  const Sweep s = expand_sweep(cfg, testing::host_registry(), Backend::host);
  ASSERT_EQ(s.cases.size(), 4u);
  EXPECT_EQ(s.cases[0].name(), "allreduce/oneshot-pull/bf16/gpus:4/bytes:1024");
  EXPECT_EQ(s.cases[1].name(), "allreduce/oneshot-pull/bf16/gpus:4/bytes:1024/skew:20");
}

TEST(Skew, BadSkewsAreUsageErrors) {
  for (double bad : {-1.0, 1e300, 20e6}) {  // negative; past any timeout; 20 s with a 10 s --timeout
    RunConfig cfg;
    cfg.skews_us = {0, bad};
    EXPECT_THROW(resolve_defaults(cfg, Backend::host, 0), UsageError) << bad;
  }
}

TEST(Skew, LatencyAfterTheLastArrivalIsBetweenZeroAndTheLatency) {
  const Registry reg = testing::host_registry();
  FabricCache fabrics = testing::host_fabric_cache();
  RunConfig cfg = testing::quick_config();
  Harness h(cfg, Backend::host, reg, fabrics);
  for (const char* v : {"oneshot-push", "oneshot-pull"})
    for (double skew : {0.0, 20.0}) {
      Case c{v, Family::allreduce, DType::bf16, 4, 1024};
      c.skew_us = skew;
      const CaseResult r = h.run(c);
      ASSERT_TRUE(r.ok) << c.name() << ": " << r.reason;
      if (skew == 0) {
        EXPECT_FALSE(r.phases.has_value()) << "no skew, no --phases: nothing recorded";
        continue;
      }
      ASSERT_TRUE(r.phases.has_value()) << c.name();
      testing::expect_sound_timeline(*r.phases, c.name());
      // The last rank was held 20 µs before its op, inside the timed sample: every sample is at
      // least that long, and what follows the last arrival is at most the rest.
      EXPECT_GE(r.latency_us.min, skew) << c.name();
      EXPECT_GE(r.phases->op_us, skew) << c.name();
      EXPECT_LE(r.phases->after_last_arrival_us, r.phases->latency_us) << c.name();
      EXPECT_GE(r.phases->after_last_arrival_us, 0.0) << c.name();
    }
}

}  // namespace
}  // namespace arbench
