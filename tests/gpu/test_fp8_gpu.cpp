// oneshot-fp8 and twoshot-fp8 kernels (docs/variants.md, "FP8 on the wire"). Skips without a device.
//  - on the single_gpu fabric (2, 4, 8 virtual ranks): every rank's output bitwise equal to the
//    host model of the same arithmetic (tests/host/kernels/fp8_model.hpp, which the twins also
//    match), for every dtype and the four input distributions: kernel == twin, bit for bit;
//  - through the harness on both symmetric-memory providers (cuda: arbench's peer mappings;
//    nccl: NCCL windows, skipped without NCCL) at every world size the box has: eager ops and
//    CUDA-graph replays checked against the exact sum within the bound, error figures filled.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_cases.hpp"
#include "gpu_test_util.hpp"
#include "kernels/fabric/cuda/single_gpu_fabric.hpp"
#include "kernels/fabric/nccl/nccl_fabric.hpp"
#include "kernels/fabric/peer/peer_fabric.hpp"
#include "kernels/fp8/fp8_kernels.hpp"
#include "measure/harness.hpp"
#include "tests/host/kernels/fp8_model.hpp"

using namespace arbench;
using namespace arbench::testing;

namespace {

void kernel_matches_model(SingleGpuFabric& f, Fp8Algo a, DType t, std::size_t n, algo::Fp8Inputs kind) {
  const int world = f.world();
  const std::string what = std::string(text_of(kFp8Text, a).name) + "/" + std::string(dtype_name(t)) + "/world " +
                           std::to_string(world) + "/n " + std::to_string(n) + "/" + algo::fp8_inputs_name(kind);
  Case c;
  c.variant = text_of(kFp8Text, a).name;
  c.dtype = t;
  c.world = world;
  c.bytes = n * dtype_size(t);
  auto v = make_fp8_gpu(a);
  const Support s = v->supports(c, f);
  ASSERT_TRUE(s.ok) << s.reason;
  auto in = f.alloc(c.bytes, Placement::symmetric);
  auto out = f.alloc(c.bytes, Placement::symmetric);
  OpBuffers b;
  b.in = in.get();
  b.out = out.get();
  v->prepare(c, f, b, Tuning{});
  const RankValues x = fp8_inputs(31u, world, n, t, kind);
  std::vector<std::uint8_t> host(c.bytes);
  for (int r = 0; r < world; ++r) {
    for (std::size_t i = 0; i < n; ++i) store_from_f32(host.data(), i, t, x[std::size_t(r)][i]);
    f.upload(r, in->local(r), host.data(), c.bytes);
  }
  const RankFn op = [&](int rank, Stream st) { v->launch(rank, st); };
  f.run(op);
  v->check_errors();
  const auto want = fp8_model(x, t, a == Fp8Algo::oneshot ? 1 : 2);
  for (int r = 0; r < world; ++r) {
    f.download(r, host.data(), out->local(r), c.bytes);
    EXPECT_EQ(host, want) << what << ": rank " << r << " differs from the host model (and the twin)";
  }
}

TEST(Fp8Gpu, KernelsBitwiseEqualTheHostModelOnVirtualRanks) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {2, 4, 8}) {
    SingleGpuFabric f(world, 0, 10.0);
    for (Fp8Algo a : {Fp8Algo::oneshot, Fp8Algo::twoshot})
      for (DType t : kAllDTypes)
        for (int k = 0; k < algo::kFp8InputKinds; ++k)
          for (std::size_t n : {std::size_t(1), std::size_t(128 * 7 + 37), std::size_t(65536 + 3)}) {
            kernel_matches_model(f, a, t, n, static_cast<algo::Fp8Inputs>(k));
            if (HasFatalFailure()) return;
          }
  }
}

// Both FP8 variants at 1 KiB, 64 KiB + 6 and 1 MiB (bf16), fp16 with a tail, fp32; out of place.
std::vector<Case> fp8_cases(int world) {
  std::vector<Case> out;
  for (const char* v : {"oneshot-fp8", "twoshot-fp8"}) {
    for (std::size_t bytes : {std::size_t(1024), std::size_t(65536 + 6), std::size_t(1 << 20)})
      out.push_back(Case{v, Family::allreduce, DType::bf16, world, bytes, 0, 0, false});
    out.push_back(Case{v, Family::allreduce, DType::fp16, world, 4096 * 2 + 2, 0, 0, false});
    out.push_back(Case{v, Family::allreduce, DType::fp32, world, 4000 * 4, 0, 0, false});
  }
  return out;
}

template <class Make>
void run_fp8_cases(int world, const char* provider, Make make) {
  const RunConfig cfg = quick_gpu_config();
  FabricCache fabrics([&](Backend, int w, const FabricEnv&) { return make(w); });
  Harness h(cfg, Backend::cuda, Registry::builtin(), fabrics);
  for (const Case& c : fp8_cases(world)) {
    const Support s = h.plan(c);
    if (!s.ok) GTEST_SKIP() << provider << " provider, " << world << " GPUs: " << c.name() << ": " << s.reason;
    const CaseResult r = run_checked(h, c, provider);  // eager and graph replays, checked
    ASSERT_TRUE(r.max_abs_err.has_value()) << c.name();
    ASSERT_TRUE(r.rms_rel_err.has_value()) << c.name();
    EXPECT_LT(*r.rms_rel_err, 0.1) << c.name();
  }
}

TEST(Fp8Gpu, BothVariantsOnTheCudaProviderEagerAndGraph) {
  ARB_REQUIRE_GPUS(1);
  for (int world = 1; world <= usable_gpus(); ++world)
    run_fp8_cases(world, "cuda", [](int w) { return std::make_unique<PeerFabric>(w, kGpuCaseTimeout); });
}

TEST(Fp8Gpu, BothVariantsOnTheNcclProviderEagerAndGraph) {
  ARB_REQUIRE_GPUS_AND_NCCL(1);
  for (int world = 1; world <= usable_gpus(); ++world)
    run_fp8_cases(world, "nccl", [](int w) { return std::make_unique<NcclFabric>(w, kGpuCaseTimeout); });
}

}  // namespace
