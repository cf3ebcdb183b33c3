// The peers (docs/variants.md, "Peers") on real GPUs, through the harness like arbench's own
// variants: every case checked (oracle inputs changing op to op; the fused peer against the fp64
// reference), graph replays measured, at 2 ranks on the cuda backend, on 4 and 8 where the machine
// has them, and on the single-GPU fabric where the peer's blocks all fit at once (otherwise the
// skip must say so). Compiled always; skips where no GPU exists or this arbench was built without
// the peer (the configure step's reason).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../gpu_cases.hpp"
#include "../gpu_test_util.hpp"
#include "arbench/core/peers.hpp"

using namespace arbench;
using namespace arbench::testing;

namespace {

#define ARB_REQUIRE_PEER(name)                                                                      \
  do {                                                                                              \
    if (!peer_build().built(name)) GTEST_SKIP() << name << " not built: " << peer_build().why_not(name); \
  } while (0)

Case ar(const std::string& v, DType t, int world, std::size_t bytes) {
  return Case{v, Family::allreduce, t, world, bytes, 0, 0, false};
}
Case fused(const std::string& v, int world, int tokens, int hidden, DType t = DType::bf16) {
  return Case{v, Family::allreduce_rmsnorm, t, world, std::size_t(tokens) * std::size_t(hidden) * dtype_size(t),
              tokens, hidden, false};
}

// Every case of `cases` planned and run on `b`; a plan that refuses must give a reason containing
// one of `allowed` (the peer's own limits for that shape), else the test fails with it.
void run_all(Backend b, const std::vector<Case>& cases, const std::vector<std::string>& allowed = {}) {
  const RunConfig cfg = quick_gpu_config(10.0);
  FabricCache fabrics = gpu_fabrics(10.0);
  Harness h(cfg, b, Registry::builtin(), fabrics);
  for (const Case& c : cases) {
    const Support s = h.plan(c);
    if (!s.ok) {
      bool known = false;
      for (const std::string& a : allowed) known = known || s.reason.find(a) != std::string::npos;
      EXPECT_TRUE(known) << c.name() << " was not run: " << s.reason;
      continue;
    }
    run_checked(h, c, std::string(backend_name(b)));
  }
}

std::vector<Case> pcie_ipc_cases(int world) {
  std::vector<Case> out;
  std::vector<std::string> names = {"flashinfer-pcie-ipc", "flashinfer-pcie-ipc[unstaged]", "flashinfer-pcie-ipc[staged]"};
  if (world >= 4) names.push_back("flashinfer-pcie-ipc[staged-ring]");
  if (world == 8) names.push_back("flashinfer-pcie-ipc[flat-staged]");
  for (const std::string& v : names) {
    for (std::size_t bytes : {std::size_t(1024), std::size_t(64 * 1024), std::size_t(1 << 20)})
      out.push_back(ar(v, DType::bf16, world, bytes));
    out.push_back(ar(v, DType::fp16, world, 4096 * 2));
  }
  return out;
}

std::vector<Case> vllm_cases(int world) {
  std::vector<Case> out;
  for (const char* v : {"vllm-custom", "vllm-custom[1stage]", "vllm-custom[2stage]"}) {
    for (std::size_t bytes : {std::size_t(1024), std::size_t(64 * 1024 + 16), std::size_t(1 << 20)})
      out.push_back(ar(v, DType::bf16, world, bytes));
    out.push_back(ar(v, DType::fp16, world, 4096 * 2));
  }
  return out;
}

std::vector<Case> fusion_cases(int world) {
  std::vector<Case> out;
  for (const char* v : {"flashinfer-fused", "flashinfer-fused[oneshot]", "flashinfer-fused[twoshot]"})
    for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{1, 8192}, {16, 4096}, {64, 8192}})
      out.push_back(fused(v, world, tokens, hidden));
  out.push_back(fused("flashinfer-fused", world, 8, 2048, DType::fp16));
  return out;
}

const std::vector<std::string> kResidency = {"blocks resident at once"};

}  // namespace

TEST(PeersGpu, PcieIpcOnTwoGpusAndMore) {
  ARB_REQUIRE_PEER("flashinfer-pcie-ipc");
  ARB_REQUIRE_GPUS(2);
  for (int world : {2, 4, 8})
    if (world <= usable_gpus()) run_all(Backend::cuda, pcie_ipc_cases(world));
}

TEST(PeersGpu, VllmCustomOnTwoGpusAndMore) {
  ARB_REQUIRE_PEER("vllm-custom");
  ARB_REQUIRE_GPUS(2);
  for (int world : {2, 4, 8})
    if (world <= usable_gpus()) run_all(Backend::cuda, vllm_cases(world));
}

TEST(PeersGpu, FusionOnTwoGpusAndMore) {
  ARB_REQUIRE_PEER("flashinfer-fused");
  ARB_REQUIRE_GPUS(2);
  // Two-shot needs more tokens than ranks: 1 token is a skip that says so.
  for (int world : {2, 4, 8})
    if (world <= usable_gpus()) run_all(Backend::cuda, fusion_cases(world), {"more tokens than ranks"});
}

// On one GPU every virtual rank's blocks must be resident at once: where they are, the peer runs
// and is checked; where not, the skip says so (never a hang).
TEST(PeersGpu, SingleGpuWhereTheBlocksFit) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {2, 4, 8}) {
    // Two ranks of 16 (PCIe-IPC) or 36 (vLLM) blocks fit any GPU arbench targets: they must run.
    const std::vector<std::string> fit = world == 2 ? std::vector<std::string>{} : kResidency;
    if (peer_build().built("flashinfer-pcie-ipc")) run_all(Backend::single_gpu, pcie_ipc_cases(world), fit);
    if (peer_build().built("vllm-custom")) run_all(Backend::single_gpu, vllm_cases(world), fit);
    if (peer_build().built("flashinfer-fused")) {
      std::vector<std::string> allowed = kResidency;
      allowed.push_back("more tokens than ranks");
      run_all(Backend::single_gpu, fusion_cases(world), allowed);
    }
  }
}
