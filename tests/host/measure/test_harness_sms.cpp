// The SMs each case takes (Variant::sms, docs/output.md "sms") through the harness on the host
// backend: every host variant records a count, and it is the CUDA launch policy's grid on the
// modelled 188-SM device (kSmsModelled), never the twins' own block count (they run on a 4-SM
// stand-in: a 64 KiB oneshot-pull runs 4 twin blocks and would launch 8 on the GPU); --blocks and
// --ring-channels move it as they move the launch.
#include <gtest/gtest.h>

#include "arbench/variant.hpp"
#include "measure/harness.hpp"
#include "tests/host/measure/harness_test_util.hpp"

namespace arbench {
namespace {

Case ar(const std::string& v, std::size_t bytes) { return Case{v, Family::allreduce, DType::bf16, 2, bytes, 0, 0, false}; }
Case fused(const std::string& v, int tokens) {
  return Case{v, Family::allreduce_rmsnorm, DType::bf16, 2, std::size_t(tokens) * 8192 * 2, tokens, 8192, false};
}

SmUse sms_of(const Case& c, const RunConfig& cfg = testing::quick_config()) {
  const Registry reg = testing::host_registry();
  FabricCache fabrics = testing::host_fabric_cache();
  Harness h(cfg, Backend::host, reg, fabrics);
  const CaseResult r = h.run(c);
  EXPECT_TRUE(r.ok) << c.name() << ": " << r.reason;
  return r.sms;
}

TEST(HarnessSms, EveryHostVariantRecordsACount) {
  const Registry reg = testing::host_registry();
  int seen = 0;
  for (const VariantEntry& e : reg.entries()) {
    if (!e.host) continue;
    const Case c = e.family == Family::allreduce ? ar(e.name, 4096) : fused(e.name, 2);
    RunConfig cfg = testing::quick_config();
    cfg.tuning.islands[2] = {0, 1};  // the island variants need two islands
    const SmUse s = sms_of(c, cfg);
    EXPECT_TRUE(s.known()) << e.name << ": " << s.basis;
    EXPECT_FALSE(s.basis.empty()) << e.name;
    ++seen;
  }
  EXPECT_GE(seen, 10);
}

TEST(HarnessSms, TheModelledGridOfTheLaunchPolicyNotTheTwinsBlocks) {
  // oneshot-pull: a block per 8 KiB (512 packs of 16 bytes), at most kMaxBlocks (64).
  EXPECT_EQ(sms_of(ar("oneshot-pull", 8192)).ctas, 1);
  EXPECT_EQ(sms_of(ar("oneshot-pull", 65536)).ctas, 8);  // the twin runs 4 (its 4-SM stand-in)
  EXPECT_EQ(sms_of(ar("oneshot-pull", 1 << 20)).ctas, 64);
  EXPECT_EQ(sms_of(ar("oneshot-pull", 65536)).basis, kSmsModelled);
  // ring: a channel (block) per 64 KiB, at most 8 by default.
  EXPECT_EQ(sms_of(ar("ring", 65536)).ctas, 1);
  EXPECT_EQ(sms_of(ar("ring", 256 << 10)).ctas, 4);
  EXPECT_EQ(sms_of(ar("ring", 1 << 20)).ctas, 8);
  // fused-oneshot: a block per token row; unfused-oneshot: the wider of oneshot-pull's grid (16
  // KiB per token: 2 blocks a token) and the norm's (a block per row).
  EXPECT_EQ(sms_of(fused("fused-oneshot", 16)).ctas, 16);  // the twin runs 4
  EXPECT_EQ(sms_of(fused("fused-twoshot", 16)).ctas, 8);   // each rank owns half the rows
  EXPECT_EQ(sms_of(fused("unfused-oneshot", 16)).ctas, 32);
  EXPECT_EQ(sms_of(ar("reference", 4096)).ctas, 0);
}

TEST(HarnessSms, CopyEngineVariantsTakeOnlyTheirReduceKernelsGrid) {
  // ce-*: the copies take no SM; the widest reduce kernel of the program (CePolicy::reduce_blocks:
  // a CTA per 1024 packs of its chunk, at most 16) is what the op keeps resident.
  EXPECT_EQ(sms_of(ar("ce-twoshot", 4096)).ctas, 1);
  EXPECT_EQ(sms_of(ar("ce-twoshot", 1 << 20)).ctas, 16);
  EXPECT_EQ(sms_of(ar("ce-ring", 1 << 20)).ctas, 16);
  EXPECT_EQ(sms_of(ar("ce-ring", 1 << 20)).basis, kSmsModelled);
}

TEST(HarnessSms, BlocksAndRingChannelsMoveItAsTheyMoveTheLaunch) {
  RunConfig cfg = testing::quick_config();
  cfg.tuning.blocks = 3;
  EXPECT_EQ(sms_of(ar("oneshot-pull", 1 << 20), cfg).ctas, 3);
  EXPECT_EQ(sms_of(ar("twoshot", 1 << 20), cfg).ctas, 3);
  cfg.tuning.ring_channels = 2;
  EXPECT_EQ(sms_of(ar("ring", 1 << 20), cfg).ctas, 2);
}

}  // namespace
}  // namespace arbench
