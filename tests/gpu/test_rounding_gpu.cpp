// The CUDA kernels on inputs that are not exact: every custom all-reduce kernel and the fused
// kernels on single_gpu (virtual ranks on GPU 0), against the documented rounding model bit for
// bit (tests/host/kernels/rounding_model.hpp), the same bits the host twins are held to in
// test_twin_rounding.cpp. A kernel that reorders its sum fails here. (NCCL's own order is not
// arbench's to document: nccl* variants are left out.) Skips with a reason without a device.
#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/island/island_kernels.hpp"
#include "measure/fabric_factory.hpp"
#include "tests/host/kernels/rounding_runs.hpp"

namespace arbench::testing {
namespace {

TEST(RoundingGpu, AllReduceKernelsFollowTheDocumentedOrderBitwise) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {2, 3, 8}) {
    auto f = make_fabric(Backend::single_gpu, world, {}, 10.0);
    for (DType t : kAllDTypes) {
      const auto x = order_sensitive_inputs(t, world, 64 * 1024 + 7, 300u + unsigned(world));
      int kernels = 0;
      for (const auto& e : Registry::builtin().entries()) {
        if (e.family != Family::allreduce || !e.gpu || e.name.rfind("nccl", 0) == 0) continue;
        auto v = e.gpu();
        allreduce_vs_model(*f, *v, e.name, t, x, /*report=*/true);
        ++kernels;
      }
      EXPECT_GE(kernels, 6) << "oneshot-pull, oneshot-push, twoshot, ring, island-oneshot, island-twoshot";
    }
  }
}

TEST(RoundingGpu, FusedKernelsFollowTheModelBitwise) {
  ARB_REQUIRE_GPUS(1);
  constexpr int kWorld = 5;
  auto f = make_fabric(Backend::single_gpu, kWorld, {}, 10.0);
  for (DType t : kAllDTypes)
    for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{3, 2064}, {16, 7176}}) {
      const FusedInputs in = fused_order_sensitive_inputs(t, kWorld, tokens, hidden, 41);
      const RmsnormModel want = rmsnorm_model(t, in);
      for (FusedAlgo a : {FusedAlgo::unfused_oneshot, FusedAlgo::fused_oneshot, FusedAlgo::fused_twoshot}) {
        auto v = make_fused_gpu(a, FusedOptions{algo::kEpochStart, false});
        fused_vs_model(*f, *v, fused_algo_name(a), t, in, want);
      }
      const RmsnormModel island_want = rmsnorm_model(t, in, false, islands_of_text("0-1,2-4"));
      for (IslandAlgo a : {IslandAlgo::fused_oneshot, IslandAlgo::fused_twoshot}) {
        auto v = make_island_gpu(a);
        fused_vs_model(*f, *v, island_algo_name(a), t, in, island_want);
      }
    }
}

}  // namespace
}  // namespace arbench::testing
