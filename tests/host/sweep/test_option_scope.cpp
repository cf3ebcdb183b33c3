// sweep/option_scope: options that cannot shape the sweep are refused, and the recorded config
// keeps only what did.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "arbench/core/errors.hpp"
#include "sweep/option_scope.hpp"

using namespace arbench;

namespace {

Sweep sweep_of(const std::vector<std::pair<std::string, Family>>& variants) {
  Sweep s;
  for (const auto& [v, f] : variants) s.cases.push_back(Case{v, f, DType::bf16, 2, 1024, f == Family::allreduce ? 0 : 1,
                                                             f == Family::allreduce ? 0 : 512, false});
  return s;
}

std::string refusal(const std::set<std::string>& given, Backend b, const Sweep& s) {
  RunConfig cfg;
  cfg.given = given;
  try {
    check_options_apply(cfg, b, sweep_scope(s));
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(OptionScope, RefusesWhatCannotApply) {
  const Sweep ar = sweep_of({{"ring", Family::allreduce}, {"nccl", Family::allreduce}});
  const Sweep fused = sweep_of({{"fused-oneshot", Family::allreduce_rmsnorm}});
  EXPECT_EQ(refusal({"--gpus", "--ring-chunk", "--samples"}, Backend::host, ar), "");
  EXPECT_NE(refusal({"--tokens"}, Backend::host, ar).find("--tokens shapes the allreduce_rmsnorm family"), std::string::npos);
  EXPECT_NE(refusal({"--eps"}, Backend::cuda, ar).find("--eps shapes"), std::string::npos);
  EXPECT_EQ(refusal({"--tokens", "--eps", "--blocks"}, Backend::host, fused), "");
  EXPECT_NE(refusal({"--max-bytes"}, Backend::host, fused).find("--max-bytes applies to the allreduce family"),
            std::string::npos);
  EXPECT_NE(refusal({"--blocks"}, Backend::host, ar).find("--blocks sets the blocks"), std::string::npos);
  EXPECT_NE(refusal({"--ring-order"}, Backend::host, fused).find("--ring-order tunes the native ring"), std::string::npos);
  EXPECT_NE(refusal({"--links"}, Backend::host, ar).find("this run uses the host backend"), std::string::npos);
  EXPECT_EQ(refusal({"--links", "--no-link-probe"}, Backend::cuda, ar), "");
  EXPECT_NE(refusal({"--allow-ll128-pcie"}, Backend::cuda, ar).find("--variants selects neither"), std::string::npos);
  EXPECT_EQ(refusal({"--allow-ll128-pcie"}, Backend::cuda, sweep_of({{"nccl[ring/ll128]", Family::allreduce}})), "");
  // --symm-mem: the cuda backend's custom kernels only (the host and single-gpu ranks share one
  // memory; NCCL's variants use NCCL's whatever is asked).
  EXPECT_EQ(refusal({"--symm-mem"}, Backend::cuda, ar), "");
  EXPECT_NE(refusal({"--symm-mem"}, Backend::host, ar).find("--symm-mem chooses who maps"), std::string::npos);
  EXPECT_NE(refusal({"--symm-mem"}, Backend::single_gpu, fused).find("single-gpu backend"), std::string::npos);
  EXPECT_NE(refusal({"--symm-mem"}, Backend::cuda, sweep_of({{"nccl", Family::allreduce}, {"nccl-symm", Family::allreduce},
                                                             {"unfused-nccl", Family::allreduce_rmsnorm}}))
                .find("NCCL's variants only"),
            std::string::npos);
  EXPECT_EQ(refusal({"--symm-mem"}, Backend::cuda, fused), "");
  // --no-sol: floors exist on cuda and host, never on single-gpu.
  EXPECT_EQ(refusal({"--no-sol"}, Backend::host, ar), "");
  EXPECT_EQ(refusal({"--no-sol"}, Backend::cuda, ar), "");
  EXPECT_NE(refusal({"--no-sol"}, Backend::single_gpu, ar).find("never computes"), std::string::npos);
  // A custom kernel nobody listed takes --blocks (a deny-list: new kernels are not refused).
  EXPECT_EQ(refusal({"--blocks"}, Backend::host, sweep_of({{"island-oneshot", Family::allreduce}})), "");
}

// The options of variants the sweep does not run say, in full, what they do and which variant to add.
TEST(OptionScope, VariantOptionsNameTheVariantToAdd) {
  const Sweep ar = sweep_of({{"nccl", Family::allreduce}});
  EXPECT_EQ(refusal({"--ring-channels"}, Backend::host, ar),
            "--ring-channels tunes the native ring (variant ring), which this sweep does not run; drop it, or add ring "
            "to --variants");
  EXPECT_EQ(refusal({"--islands"}, Backend::host, ar),
            "--islands sets the islands of the island variants (island-*, fused-island-*), which this sweep does not "
            "run; drop it, or add e.g. island-oneshot to --variants");
  EXPECT_EQ(refusal({"--peer-workspace"}, Backend::cuda, ar),
            "--peer-workspace sizes the workspace of the peer flashinfer-pcie-ipc, which this sweep does not run; drop "
            "it, or add flashinfer-pcie-ipc to --variants");
  EXPECT_EQ(refusal({"--islands", "--peer-workspace"}, Backend::cuda, sweep_of({{"island-oneshot", Family::allreduce},
                                                                                {"flashinfer-pcie-ipc", Family::allreduce}})),
            "");
}

TEST(OptionScope, ConfigKeepsWhatShapedTheSweep) {
  nlohmann::json cfg = config_to_json(RunConfig{});
  drop_unused_config(cfg, Backend::host, sweep_scope(sweep_of({{"reference", Family::allreduce}})));
  for (const char* k : {"tokens", "hidden", "model", "eps", "ring_chunk", "ring_channels", "ring_order", "blocks",
                        "links_file", "link_probe", "allow_ll128_pcie", "symm_mem"})
    EXPECT_FALSE(cfg.contains(k)) << k;
  EXPECT_TRUE(cfg.contains("gpus"));
  nlohmann::json all = config_to_json(RunConfig{});
  drop_unused_config(all, Backend::cuda, sweep_scope(sweep_of({{"ring", Family::allreduce},
                                                              {"fused-oneshot", Family::allreduce_rmsnorm}})));
  for (const char* k : {"tokens", "eps", "ring_chunk", "blocks", "links_file"}) EXPECT_TRUE(all.contains(k)) << k;
}
