// The allreduce_rmsnorm GPU variants: through the harness on single_gpu (virtual ranks on GPU 0)
// against the fp64 reference, bitwise against the host twins (the same math on both sides), and
// unfused-nccl on the cuda fabric when there are GPUs and NCCL. Skips without a device.
#include <gtest/gtest.h>

#include <vector>

#include "measure/harness.hpp"
#include "workload/rmsnorm_reference.hpp"
#include "workload/workload.hpp"
#include "measure/fabric_factory.hpp"
#include "gpu_cases.hpp"
#include "gpu_test_util.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fused/fused_kernels.hpp"
#include "kernels/fused/fused_twins.hpp"

using namespace arbench;

namespace {

constexpr FusedAlgo kKernels[] = {FusedAlgo::unfused_oneshot, FusedAlgo::fused_oneshot, FusedAlgo::fused_twoshot};

Case fused_case(FusedAlgo a, DType t, int world, int tokens, int hidden) {
  return Case{fused_algo_name(a), Family::allreduce_rmsnorm, t, world,
              std::size_t(tokens) * std::size_t(hidden) * dtype_size(t), tokens, hidden, false};
}

CaseResult run_case(Backend b, const Case& c) { return arbench::testing::plan_and_run(b, c, 10.0); }

// norm_out and residual_out of every rank after one op of `v` on `f` (oracle inputs, seed 3).
std::vector<std::vector<std::uint8_t>> outputs(Variant& v, Fabric& f, const Case& c) {
  auto work = make_rmsnorm_workload(c, f, v.buffer_placement(), 3, 1e-6);
  v.prepare(c, f, work->buffers(), Tuning{});
  f.run(op_of(v));
  v.check_errors();
  std::vector<std::vector<std::uint8_t>> out;
  for (int r = 0; r < f.world(); ++r)
    for (RankBuffers* b : {work->buffers().norm_out, work->buffers().residual_out}) {
      out.emplace_back(c.bytes);
      f.download(r, out.back().data(), b->local(r), c.bytes);
    }
  return out;
}

}  // namespace

TEST(FusedGpu, SingleGpuWithinToleranceOnEveryShape) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {1, 2, 3, 8})
    for (FusedAlgo a : kKernels)
      for (DType t : kAllDTypes)
        for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{1, 8192}, {16, 8192}, {5, 7176}, {3, 1001}, {64, 4096}}) {
          const CaseResult r = run_case(Backend::single_gpu, fused_case(a, t, world, tokens, hidden));
          EXPECT_TRUE(r.ok) << r.c.name() << ": " << r.reason;
          EXPECT_LE(r.max_ulp_error, rmsnorm_tolerance_ulp(t)) << r.c.name();
          EXPECT_GT(r.latency_us.median, 0.0) << r.c.name();
        }
}

TEST(FusedGpu, KernelsMatchTheHostTwinsBitwise) {
  ARB_REQUIRE_GPUS(1);
  for (FusedAlgo a : kKernels)
    for (DType t : kAllDTypes) {
      const Case c = fused_case(a, t, 4, 6, 7176);
      auto gpu_fabric = make_fabric(Backend::single_gpu, 4, {}, 10.0);
      HostFabric host_fabric(4);
      auto gv = make_fused_gpu(a, FusedOptions{algo::kEpochStart, false});
      auto hv = make_fused_twin(a, FusedOptions{algo::kEpochStart, false});
      EXPECT_EQ(outputs(*gv, *gpu_fabric, c), outputs(*hv, host_fabric, c)) << c.name();
    }
}

TEST(FusedGpu, UnfusedNcclOnEveryGpuCount) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  int n = 0;
  cudaGetDeviceCount(&n);
  for (int world = 1; world <= n; world *= 2)
    for (int tokens : {1, 16}) {
      const CaseResult r = run_case(Backend::cuda, fused_case(FusedAlgo::unfused_nccl, DType::bf16, world, tokens, 8192));
      EXPECT_TRUE(r.ok) << r.c.name() << ": " << r.reason;
      EXPECT_LE(r.max_ulp_error, rmsnorm_tolerance_ulp(DType::bf16));
    }
}
