// A settings line whose knob turns a peer's kernel on or off cites that kernel's own cases when
// the results have them, and says it measured arbench's nearest variant when they do not
// (docs/variants.md, "Peers"; tests/fixtures/settings/make_fixtures.py: peers-pcie8 holds the
// peers beside arbench's kernels, which win further, so a line judged on the wrong one shows).
#include <gtest/gtest.h>

#include "tests/host/settings/settings_fixture.hpp"

namespace arbench {
namespace {

using testing::fixture_path;
using testing::settings_of;

bool cites(const EngineSetting& s, const std::string& variant) {
  if (s.evidence.empty()) return false;
  for (const Evidence& e : s.evidence)
    if (e.chosen != variant) return false;
  return true;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SettingsPeers, PcieIpcLineCitesFlashInfersOwnKernel) {
  const auto f = settings_of(fixture_path("peers-pcie8.json"));
  for (const EngineSetting* s : {f.setting(8, "vllm.fi_pcie_ipc"), f.setting(8, "sglang.pcie_ipc")}) {
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(cites(*s, "flashinfer-pcie-ipc")) << s->knob;
    EXPECT_TRUE(has(s->value, "FlashInfer's PCIe-IPC all-reduce beats NCCL up to 256 KiB")) << s->knob << ": " << s->value;
    EXPECT_TRUE(has(s->why, "measured `flashinfer-pcie-ipc`, the kernel itself")) << s->knob << ": " << s->why;
  }
}

TEST(SettingsPeers, CustomAllReduceLineCitesVllmsOwnKernel) {
  const auto f = settings_of(fixture_path("peers-pcie8.json"));
  const EngineSetting* s = f.setting(2, "vllm.custom_ar");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(cites(*s, "vllm-custom"));
  EXPECT_TRUE(has(s->value, "up to 64 KiB")) << s->value;  // arbench's one-shot would say 1 MiB
  EXPECT_TRUE(has(s->why, "measured `vllm-custom`, the kernel itself")) << s->why;
}

TEST(SettingsPeers, UseOneshotLineCitesFlashInfersForcedKernels) {
  const auto f = settings_of(fixture_path("peers-pcie8.json"));
  const EngineSetting* s = f.setting(8, "flashinfer.use_oneshot");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(cites(*s, "flashinfer-fused[oneshot]"));
  EXPECT_TRUE(has(s->value, "one-shot up to 16 tokens, two-shot above")) << s->value;  // arbench's: every count
  EXPECT_TRUE(has(s->why, "measured `flashinfer-fused[oneshot]` and `flashinfer-fused[twoshot]`, the kernel itself"))
      << s->why;
}

TEST(SettingsPeers, FusionLineIsJudgedOnFlashInfersKernel) {
  const auto f = settings_of(fixture_path("peers-pcie8.json"));
  const EngineSetting* s = f.setting(8, "vllm.fusion");
  ASSERT_NE(s, nullptr);
  ASSERT_FALSE(s->evidence.empty());
  for (const Evidence& e : s->evidence) EXPECT_EQ(e.chosen.rfind("flashinfer-fused[", 0), 0u) << e.chosen;
  EXPECT_TRUE(has(s->why, "the kernel itself")) << s->why;
}

// Without the peers' cases each such line says it measured arbench's nearest variant, and which
// peer to add.
TEST(SettingsPeers, WithoutThePeersTheLinesSayTheyMeasuredTheNearestVariant) {
  const auto f = settings_of(fixture_path("pcie8-crossovers.json"));
  const EngineSetting* s = f.setting(8, "vllm.fi_pcie_ipc");
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(has(s->why, "measured arbench's nearest variant (one-shot / two-shot), not the kernel itself: add "
                          "`flashinfer-pcie-ipc` to the run"))
      << s->why;
  const EngineSetting* o = f.setting(8, "flashinfer.use_oneshot");
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(has(o->why, "measured arbench's nearest variant (fused-oneshot / fused-twoshot)")) << o->why;
  for (const Evidence& e : o->evidence) EXPECT_EQ(e.chosen.rfind("fused-", 0), 0u) << e.chosen;
}

}  // namespace
}  // namespace arbench
