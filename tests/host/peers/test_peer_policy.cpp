// The peers' limits as skip reasons and their launch choices (kernels/peers/peer_policy.hpp),
// restated from FlashInfer's and vLLM's sources: tested here without their headers.
#include <gtest/gtest.h>

#include <string>

#include "kernels/peers/peer_policy.hpp"

using namespace arbench;

namespace {

Case ar(const std::string& v, DType t, int world, std::size_t bytes, bool in_place = false) {
  return Case{v, Family::allreduce, t, world, bytes, 0, 0, in_place};
}
Case fused(int world, int tokens, int hidden, DType t = DType::bf16) {
  return Case{"flashinfer-fused", Family::allreduce_rmsnorm, t, world,
              std::size_t(tokens) * std::size_t(hidden) * dtype_size(t), tokens, hidden, false};
}
bool says(const Support& s, const std::string& text) { return !s.ok && s.reason.find(text) != std::string::npos; }

}  // namespace

// FlashInfer's _seed (pcie_ipc_policy.py at fb28d7242b35): world 2 always unstaged 16 x 128; the
// neighbour ring from 32 KiB with a block per 256 KiB, at most 4; below it staged 1 x 256 at 4
// ranks and unstaged 16 x 256 at 8.
TEST(PeerPolicy, PcieIpcSeedAsFlashInferPicks) {
  const auto seed = [](int w, std::size_t bytes) { return pcie_ipc_seed(w, bytes / 2, 2); };
  for (std::size_t b : {std::size_t(1024), std::size_t(32 << 20)}) {
    const PcieIpcLaunch l = seed(2, b);
    EXPECT_EQ(l.schedule, PcieIpcSchedule::unstaged);
    EXPECT_EQ(l.blocks, 16);
    EXPECT_EQ(l.threads, 128);
  }
  EXPECT_EQ(seed(4, 32 * 1024 - 16).schedule, PcieIpcSchedule::staged);
  EXPECT_EQ(seed(4, 32 * 1024 - 16).blocks, 1);
  EXPECT_EQ(seed(8, 32 * 1024 - 16).schedule, PcieIpcSchedule::unstaged);
  EXPECT_EQ(seed(8, 32 * 1024 - 16).blocks, 16);
  for (int w : {4, 8}) {
    EXPECT_EQ(seed(w, 32 * 1024).schedule, PcieIpcSchedule::staged_ring);
    EXPECT_EQ(seed(w, 32 * 1024).blocks, 1);      // payload // 256 KiB is 0: at least 1
    EXPECT_EQ(seed(w, 512 * 1024).blocks, 2);
    EXPECT_EQ(seed(w, 64 << 20).blocks, 4);       // capped at _SEED_RING_MAX_BLOCKS
    EXPECT_EQ(seed(w, 64 << 20).threads, 256);
  }
}

TEST(PeerPolicy, PcieIpcForcedScheduleKeepsTheSeedsGridWhereItHasOne) {
  EXPECT_EQ(pcie_ipc_launch(PcieIpcSchedule::staged, 2, 512, 2).blocks, 16);
  EXPECT_EQ(pcie_ipc_launch(PcieIpcSchedule::staged, 2, 512, 2).threads, 128);
  EXPECT_EQ(pcie_ipc_launch(PcieIpcSchedule::staged, 4, 1 << 20, 2).blocks, 1);
  EXPECT_EQ(pcie_ipc_launch(PcieIpcSchedule::staged_ring, 8, 256, 2).blocks, 1);
  EXPECT_EQ(pcie_ipc_launch(PcieIpcSchedule::staged, 8, 256, 2).blocks % 4, 0);
  EXPECT_EQ(pcie_ipc_launch(PcieIpcSchedule::flat_staged, 8, 256, 2).blocks, 16);
  EXPECT_EQ(pcie_ipc_launch(std::nullopt, 8, 256, 2, 12).blocks, 12);  // --blocks
  EXPECT_EQ(pcie_ipc_launch(PcieIpcSchedule::unstaged, 8, 256, 2).schedule, PcieIpcSchedule::unstaged);
}

TEST(PeerPolicy, PcieIpcLimitsAreSkipReasons) {
  const std::string v = "flashinfer-pcie-ipc";
  EXPECT_TRUE(pcie_ipc_limits(ar(v, DType::bf16, 8, 65536), std::nullopt).ok);
  EXPECT_TRUE(pcie_ipc_limits(ar(v, DType::fp16, 2, 32), std::nullopt).ok);  // one pack per rank
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 3, 4096), std::nullopt), "2, 4 or 8 ranks"));
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::fp32, 2, 4096), std::nullopt), "bf16 and fp16"));
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 2, 4096, true), std::nullopt), "out of place"));
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 2, 4096 + 6), std::nullopt), "not a multiple of 16"));
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 8, 64), std::nullopt), "one 16-byte pack per rank"));
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 2, 4096), PcieIpcSchedule::staged_ring), "unstaged and staged"));
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 4, 4096), PcieIpcSchedule::flat_staged), "8-rank schedule"));
  EXPECT_TRUE(pcie_ipc_limits(ar(v, DType::bf16, 8, 4096), PcieIpcSchedule::flat_staged).ok);
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 8, 4096), PcieIpcSchedule::staged, 6), "divisible by 4"));
  EXPECT_TRUE(says(pcie_ipc_limits(ar(v, DType::bf16, 4, 4096), std::nullopt, 129), "at most 128 blocks"));
  EXPECT_TRUE(says(pcie_ipc_limits(Case{v, Family::allreduce_rmsnorm, DType::bf16, 2, 64, 1, 32, false}, std::nullopt),
                   "an all-reduce"));
}

// _should_use_oneshot: (tokens x hidden x 2 x world x elem) MiB at most 512 / 64 / 42 at 2 / 4 / 8.
TEST(PeerPolicy, FusionOneShotAsFlashInferPicks) {
  // 8 ranks, hidden 8192, bf16: 1 token is 0.25 MiB, 168 tokens 42 MiB (one-shot), 169 above.
  EXPECT_EQ(fusion_shot(8, 168, 8192, 2), FusionShot::oneshot);
  EXPECT_EQ(fusion_shot(8, 169, 8192, 2), FusionShot::twoshot);
  // 4 ranks: 64 MiB is 512 tokens.
  EXPECT_EQ(fusion_shot(4, 512, 8192, 2), FusionShot::oneshot);
  EXPECT_EQ(fusion_shot(4, 513, 8192, 2), FusionShot::twoshot);
  EXPECT_EQ(fusion_shot(2, 2048, 8192, 2), FusionShot::oneshot);  // 128 MiB of 512
}

TEST(PeerPolicy, FusionLimitsAreSkipReasons) {
  EXPECT_TRUE(fusion_limits(fused(8, 16, 8192), std::nullopt).ok);
  EXPECT_TRUE(says(fusion_limits(fused(8, 5, 1001), std::nullopt), "not a multiple of 8"));
  EXPECT_TRUE(says(fusion_limits(fused(3, 5, 1024), std::nullopt), "2, 4 or 8 ranks"));
  EXPECT_TRUE(says(fusion_limits(fused(2, 5, 1024, DType::fp32), std::nullopt), "bf16 and fp16"));
  EXPECT_TRUE(says(fusion_limits(fused(8, 8, 8192), FusionShot::twoshot), "more tokens than ranks"));
  EXPECT_TRUE(fusion_limits(fused(8, 9, 8192), FusionShot::twoshot).ok);
  EXPECT_TRUE(fusion_limits(fused(2, 1, 65536), std::nullopt).ok);
  EXPECT_TRUE(says(fusion_limits(fused(2, 1, 65536 + 8 * 1024 + 8), std::nullopt), "at most 8 blocks"));
  // Two-shot signals every rank from one thread each: hidden 16 gives blocks of 2 threads.
  EXPECT_TRUE(says(fusion_limits(fused(4, 9, 16), FusionShot::twoshot), "fewer than 4 ranks"));
}

// allreduce_fusion_kernel_launcher's grid for kARResidualRMSNorm: hidden 8192 bf16 is 1024
// threads per token, a cluster of 8 blocks of 128; clusters shrink while they outnumber the SMs.
TEST(PeerPolicy, FusionGridAsFlashInferLaunchesIt) {
  FusionGrid g = fusion_grid(8, 1, 8192, 2, FusionShot::oneshot, 188, 8, 1024);
  EXPECT_EQ(g.cluster, 8);
  EXPECT_EQ(g.block, 128);
  EXPECT_EQ(g.grid, 8);
  g = fusion_grid(8, 64, 8192, 2, FusionShot::oneshot, 132, 8, 1024);  // 512 blocks wanted, 132 SMs
  EXPECT_EQ(g.cluster, 2);
  EXPECT_EQ(g.block, 512);
  EXPECT_EQ(g.grid, 128);
  g = fusion_grid(8, 64, 8192, 2, FusionShot::twoshot, 132, 8, 1024);  // 8 rows per rank
  EXPECT_EQ(g.grid, 64);
  EXPECT_EQ(fusion_grid(2, 1, 4096, 2, FusionShot::oneshot, 132, 1, 1024).cluster, 1);  // no clusters
}

// CustomAllreduce::allreduce told the GPUs are fully connected, and its grid.
TEST(PeerPolicy, VllmStageAndGridAsVllmPicks) {
  EXPECT_EQ(vllm_stage(2, 64 << 20), VllmStage::one);
  EXPECT_EQ(vllm_stage(4, 512 * 1024 - 16), VllmStage::one);
  EXPECT_EQ(vllm_stage(4, 512 * 1024), VllmStage::two);
  EXPECT_EQ(vllm_stage(8, 256 * 1024 - 16), VllmStage::one);
  EXPECT_EQ(vllm_stage(8, 256 * 1024), VllmStage::two);
  EXPECT_EQ(vllm_stage(6, 300 * 1024), VllmStage::two);
  EXPECT_EQ(vllm_blocks(16), 1);
  EXPECT_EQ(vllm_blocks(512 * 16 + 16), 2);
  EXPECT_EQ(vllm_blocks(8 << 20), 36);
  EXPECT_EQ(vllm_blocks(8 << 20, 7), 7);
}

TEST(PeerPolicy, VllmLimitsAreSkipReasons) {
  const std::string v = "vllm-custom";
  EXPECT_TRUE(vllm_limits(ar(v, DType::bf16, 6, 4096), std::nullopt).ok);
  EXPECT_TRUE(says(vllm_limits(ar(v, DType::bf16, 3, 4096), std::nullopt), "2, 4, 6 or 8"));
  EXPECT_TRUE(says(vllm_limits(ar(v, DType::bf16, 2, 4096 + 2), std::nullopt), "multiple of 16 bytes"));
  EXPECT_TRUE(says(vllm_limits(ar(v, DType::bf16, 2, 4096, true), std::nullopt), "out of place"));
  EXPECT_TRUE(says(vllm_limits(ar(v, DType::bf16, 2, 8 << 20), std::nullopt), "below its 8 MiB buffer"));
  EXPECT_TRUE(vllm_limits(ar(v, DType::bf16, 2, (8 << 20) - 16), std::nullopt).ok);
  EXPECT_TRUE(vllm_limits(ar(v, DType::bf16, 2, 64 << 20), VllmStage::two).ok);  // forced: any size
}

TEST(PeerPolicy, ConfigurationsAndLabels) {
  EXPECT_EQ(parse_pcie_ipc_schedule("staged-ring"), PcieIpcSchedule::staged_ring);
  EXPECT_FALSE(parse_pcie_ipc_schedule("ring").has_value());
  EXPECT_EQ(parse_fusion_shot("twoshot"), FusionShot::twoshot);
  EXPECT_EQ(parse_vllm_stage("1stage"), VllmStage::one);
  EXPECT_FALSE(parse_vllm_stage("3stage").has_value());
  for (PeerKind k : {PeerKind::pcie_ipc, PeerKind::fusion, PeerKind::vllm_custom})
    for (const std::string& c : peer_configs(k))
      EXPECT_EQ(peer_config_summary(k, c).rfind(std::string("`") + peer_text(k).name + "` with ", 0), 0u) << c;
  EXPECT_NE(peer_config_summary(PeerKind::vllm_custom, "2stage").find("two-stage"), std::string::npos);
  EXPECT_STREQ(peer_text(PeerKind::pcie_ipc).name, "flashinfer-pcie-ipc");
  EXPECT_EQ(peer_text(PeerKind::fusion).family, Family::allreduce_rmsnorm);
  EXPECT_STREQ(peer_text(PeerKind::vllm_custom).project, "vLLM");
}
