// FlashInfer's fused kernel as each engine runs it (kernels/peers/peer_policy.hpp, "the fusion as
// each engine runs it"): vLLM's use_oneshot table by capability, its PDL launch and completion
// flag, beside FlashInfer's own rule and defaults; tested without FlashInfer's headers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kernels/peers/peer_policy.hpp"

using namespace arbench;

namespace {

FusionLaunch launch(const std::string& config, int cc, int world, int tokens, int hidden = 8192) {
  const auto l = fusion_launch(config, cc, world, tokens, hidden, 2);
  EXPECT_TRUE(l.has_value()) << config;
  return l.value_or(FusionLaunch{});
}

}  // namespace

// The example: 8 ranks, hidden 8192, bf16, more than 168 tokens. FlashInfer's own rule goes
// two-shot; vLLM's table has no row for 12.0, so vLLM runs one-shot at every size.
TEST(PeerEngines, VllmRunsOneShotAtEverySizeOnSm120) {
  for (int tokens : {1, 168, 169, 2048}) {
    EXPECT_EQ(launch("", 120, 8, tokens).shot, FusionShot::oneshot) << tokens;
    EXPECT_EQ(launch("vllm", 120, 8, tokens).shot, FusionShot::oneshot) << tokens;
  }
  EXPECT_EQ(launch("flashinfer", 120, 8, 168).shot, FusionShot::oneshot);
  EXPECT_EQ(launch("flashinfer", 120, 8, 169).shot, FusionShot::twoshot);
  EXPECT_EQ(vllm_fusion_oneshot_max_mib(120, 8), 0);
  EXPECT_NE(fusion_rule_text(FusionRule::vllm, 120).find("no entry for capability 12.0"), std::string::npos);
}

// Where the table has a row: one-shot up to its MiB (9.0 at 8 ranks: 0.5 MiB = 32 tokens of 8192
// bf16; 10.0: 1 MiB = 64 tokens; 10.3: 2 MiB), two-shot above; at 2 ranks 32 MiB.
TEST(PeerEngines, VllmTableByCapabilityAndWorld) {
  EXPECT_EQ(launch("vllm", 90, 8, 32).shot, FusionShot::oneshot);
  EXPECT_EQ(launch("vllm", 90, 8, 33).shot, FusionShot::twoshot);
  EXPECT_EQ(launch("vllm", 100, 8, 64).shot, FusionShot::oneshot);
  EXPECT_EQ(launch("vllm", 100, 8, 65).shot, FusionShot::twoshot);
  EXPECT_EQ(launch("vllm", 103, 8, 128).shot, FusionShot::oneshot);
  EXPECT_EQ(launch("vllm", 103, 8, 129).shot, FusionShot::twoshot);
  EXPECT_EQ(launch("vllm", 90, 4, 128).shot, FusionShot::oneshot);  // 2 MiB
  EXPECT_EQ(launch("vllm", 90, 4, 129).shot, FusionShot::twoshot);
  EXPECT_EQ(launch("vllm", 100, 2, 2048).shot, FusionShot::oneshot);  // 32 MiB
  EXPECT_EQ(launch("vllm", 100, 2, 2049).shot, FusionShot::twoshot);
  EXPECT_EQ(vllm_fusion_oneshot_max_mib(90, 6), 0);  // no column for 6 ranks
}

// vLLM launches with PDL and completes at the end for one-shot or above 16 tokens; FlashInfer's
// defaults launch without PDL and complete at the end; a forced kernel launches as vLLM does.
TEST(PeerEngines, LaunchFlagsAsEachRuns) {
  const FusionLaunch v = launch("vllm", 120, 8, 4);
  EXPECT_TRUE(v.pdl);
  EXPECT_TRUE(v.trigger_at_end);
  EXPECT_EQ(v.rule, FusionRule::vllm);
  const FusionLaunch f = launch("flashinfer", 120, 8, 4);
  EXPECT_FALSE(f.pdl);
  EXPECT_TRUE(f.trigger_at_end);
  EXPECT_EQ(f.rule, FusionRule::flashinfer);
  // Two-shot at 9..16 tokens (9.0, 8 ranks, hidden 65536: 0.5 MiB is 4 tokens): early completion.
  EXPECT_EQ(launch("vllm", 90, 8, 16, 65536).shot, FusionShot::twoshot);
  EXPECT_FALSE(launch("vllm", 90, 8, 16, 65536).trigger_at_end);
  EXPECT_TRUE(launch("vllm", 90, 8, 17, 65536).trigger_at_end);
  const FusionLaunch forced = launch("twoshot", 120, 8, 16);
  EXPECT_EQ(forced.shot, FusionShot::twoshot);
  EXPECT_TRUE(forced.pdl);
  EXPECT_FALSE(forced.trigger_at_end);
  EXPECT_EQ(forced.rule, FusionRule::forced);
  EXPECT_FALSE(fusion_launch("sglang", 120, 8, 4, 8192, 2).has_value());
}

// `arbench list` names each engine's configuration and says which engine does not run it.
TEST(PeerEngines, ConfigurationsListedAndLabelled) {
  const std::vector<std::string> configs = peer_configs(PeerKind::fusion);
  for (const char* c : {"vllm", "flashinfer", "oneshot", "twoshot"})
    EXPECT_NE(std::find(configs.begin(), configs.end(), c), configs.end()) << c;
  EXPECT_NE(peer_config_summary(PeerKind::fusion, "vllm").find("SGLang does not run it on 12.x"), std::string::npos);
  EXPECT_NE(peer_config_summary(PeerKind::fusion, "flashinfer").find("use_oneshot=None"), std::string::npos);
  EXPECT_NE(std::string(peer_text(PeerKind::fusion).summary).find("as vLLM runs it"), std::string::npos);
}

// FlashInfer's PCIe-IPC workspace as an engine sizes it: max_numel for the engine's largest batch
// (--peer-workspace, whole 16-byte packs), the case's own size where the case is larger.
TEST(PeerEngines, PcieIpcWorkspaceAsTheEngineSizesIt) {
  const PcieIpcWorkspace small = pcie_ipc_workspace(512, kDefaultPeerWorkspaceBytes, 2);
  EXPECT_EQ(small.max_numel, 512 * 8192);  // 8 MiB of bf16: vLLM's 512 tokens x hidden 8192
  EXPECT_TRUE(small.engine_sized);
  const PcieIpcWorkspace large = pcie_ipc_workspace(std::size_t(16) << 20, kDefaultPeerWorkspaceBytes, 2);
  EXPECT_EQ(large.max_numel, std::int64_t(16) << 20);
  EXPECT_FALSE(large.engine_sized);
  EXPECT_EQ(pcie_ipc_workspace(8, 1000, 2).max_numel, 496);  // 1000 bytes: 62 whole packs of 8 elements
  EXPECT_EQ(pcie_ipc_workspace(8, 0, 2).max_numel, 8);       // no engine size: the case's own
  // A workspace whose packs overflow FlashInfer's int pack counts is a skip reason, not a launch.
  const Case c{"flashinfer-pcie-ipc", Family::allreduce, DType::bf16, 8, 1024, 0, 0, false};
  EXPECT_TRUE(pcie_ipc_limits(c, std::nullopt, 0, kDefaultPeerWorkspaceBytes).ok);
  const Support huge = pcie_ipc_limits(c, std::nullopt, 0, std::size_t(16) << 30);
  EXPECT_FALSE(huge.ok);
  EXPECT_NE(huge.reason.find("--peer-workspace"), std::string::npos) << huge.reason;
}
