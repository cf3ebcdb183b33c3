// The peers' one dispatch rule (arbench/core/peer_dispatch.hpp), one test per refusal: each
// engine gate refuses where the engine's code does and nowhere else.
#include <gtest/gtest.h>

#include "arbench/core/peer_dispatch.hpp"

namespace arbench {
namespace {

bool runs(const std::string& variant, int world, bool nvlink = false) {
  return peer_not_dispatchable(variant, {world, nvlink}).empty();
}

// vLLM's CustomAllreduce.__init__: disabled above two GPUs unless they are fully (NVLink) connected.
TEST(PeerDispatch, VllmCustomOffAboveTwoPcieGpus) {
  EXPECT_TRUE(runs("vllm-custom", 2));
  for (int w : {4, 6, 8}) {
    EXPECT_FALSE(runs("vllm-custom", w)) << w;
    EXPECT_TRUE(runs("vllm-custom", w, /*nvlink=*/true)) << w;
  }
  EXPECT_NE(peer_not_dispatchable("vllm-custom", {4, false}).find("not all NVLink-connected"), std::string::npos);
}

// CustomAllreduce._SUPPORTED_WORLD_SIZES: 2, 4, 6, 8 (NVLink or not).
TEST(PeerDispatch, VllmCustomOnlyAtItsWorldSizes) {
  for (int w : {3, 5, 7, 16}) {
    const std::string why = peer_not_dispatchable("vllm-custom", {w, true});
    EXPECT_NE(why.find("2, 4, 6 or 8 GPUs only, not " + std::to_string(w)), std::string::npos) << why;
  }
}

// No engine forces vLLM's stage or FlashInfer's PCIe-IPC schedule, at any world size.
TEST(PeerDispatch, ForcedStagesAndSchedulesNeverDispatched) {
  for (int w : {2, 4, 8}) {
    EXPECT_FALSE(runs("vllm-custom[1stage]", w, true)) << w;
    EXPECT_FALSE(runs("vllm-custom[2stage]", w, true)) << w;
    for (const char* s : {"unstaged", "staged", "staged-ring", "flat-staged"})
      EXPECT_FALSE(runs(std::string("flashinfer-pcie-ipc[") + s + "]", w)) << s << " at " << w;
    EXPECT_TRUE(runs("flashinfer-pcie-ipc", w)) << w;
  }
}

// The fusion's kernel choice is its caller's argument (use_oneshot): every configuration runs, as
// does every name that is no peer.
TEST(PeerDispatch, FusionConfigurationsAndOwnVariantsRun) {
  for (const char* v : {"flashinfer-fused", "flashinfer-fused[oneshot]", "flashinfer-fused[twoshot]",
                        "flashinfer-fused[vllm]", "flashinfer-fused[flashinfer]", "oneshot-push", "nccl[ring/ll]"})
    for (int w : {2, 4, 8}) EXPECT_TRUE(runs(v, w)) << v << " at " << w;
}

// `arbench tune` labels each peer with the engine that runs it so.
TEST(PeerDispatch, EachPeerLabelledWithItsEngine) {
  EXPECT_NE(peer_engine_label("flashinfer-fused").find("as vLLM's fusion pass runs it"), std::string::npos);
  EXPECT_EQ(peer_engine_label("flashinfer-fused"), peer_engine_label("flashinfer-fused[vllm]"));
  EXPECT_NE(peer_engine_label("flashinfer-fused[flashinfer]").find("FlashInfer's own rule"), std::string::npos);
  EXPECT_NE(peer_engine_label("flashinfer-fused[twoshot]").find("forced"), std::string::npos);
  EXPECT_NE(peer_engine_label("vllm-custom").find("as vLLM runs it"), std::string::npos);
  EXPECT_NE(peer_engine_label("vllm-custom[2stage]").find("no engine runs it"), std::string::npos);
  EXPECT_NE(peer_engine_label("flashinfer-pcie-ipc[staged]").find("no engine forces it"), std::string::npos);
  EXPECT_NE(peer_engine_label("flashinfer-pcie-ipc[staged]").find("tuner may pick it"), std::string::npos);
  EXPECT_EQ(peer_engine_label("oneshot-push"), "");
}

// The cases an engine's choice is taken from in tune's referee: FlashInfer's PCIe-IPC seed and every
// schedule its tuner (which vLLM runs) may pick; the fusion as vLLM runs it; vLLM's custom all-reduce
// where vLLM dispatches it. Not FlashInfer's own fusion rule, a forced fusion kernel or vLLM stage,
// nor any name that is no peer.
TEST(PeerDispatch, TheCasesAnEnginesChoiceIsTakenFrom) {
  const DispatchPlace pcie8{8, false}, pcie2{2, false}, nvlink8{8, true};
  for (const char* v : {"flashinfer-pcie-ipc", "flashinfer-pcie-ipc[staged]", "flashinfer-pcie-ipc[flat-staged]"})
    EXPECT_EQ(peer_as_engine_runs_it(v, pcie8), "flashinfer-pcie-ipc") << v;
  for (const char* v : {"flashinfer-fused", "flashinfer-fused[vllm]"})
    EXPECT_EQ(peer_as_engine_runs_it(v, pcie8), "flashinfer-fused") << v;
  for (const char* v : {"flashinfer-fused[flashinfer]", "flashinfer-fused[oneshot]", "flashinfer-fused[twoshot]",
                        "vllm-custom[1stage]", "oneshot-push", "nccl"})
    EXPECT_EQ(peer_as_engine_runs_it(v, pcie2), "") << v;
  EXPECT_EQ(peer_as_engine_runs_it("vllm-custom", pcie2), "vllm-custom");
  EXPECT_EQ(peer_as_engine_runs_it("vllm-custom", pcie8), "");  // vLLM turns it off over PCIe above 2
  EXPECT_EQ(peer_as_engine_runs_it("vllm-custom", nvlink8), "vllm-custom");
}

}  // namespace
}  // namespace arbench
