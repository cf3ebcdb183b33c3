// Host twins of unfused-oneshot, fused-oneshot and fused-twoshot against the fp64 reference
// (workload/rmsnorm_reference.hpp): 1..8 ranks, tokens 1..64 (fewer than, and not a multiple of,
// the ranks), hidden 128..8192, 7168 + 8, and hidden sizes that are not a multiple of a pack;
// every dtype; back-to-back ops; epochs across the 2^32 wrap-around; forced block counts.
// Under ThreadSanitizer (ctest label tsan) the same cases run on smaller shapes.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "arbench/core/errors.hpp"
#include "workload/rmsnorm_reference.hpp"
#include "tests/host/kernels/fused_twin_harness.hpp"
#include "tests/host/kernels/rounding_model.hpp"
#include "tests/host/thrown.hpp"

namespace arbench::testing {
namespace {

constexpr FusedAlgo kTwins[] = {FusedAlgo::unfused_oneshot, FusedAlgo::fused_oneshot, FusedAlgo::fused_twoshot};

// (tokens, hidden): one row, tokens < world, tokens not a multiple of world, the model sizes.
std::vector<std::pair<int, int>> shapes() {
  if (kTsan) return {{1, 128}, {3, 200}, {5, 1000}, {2, 7176}, {9, 136}};
  return {{1, 128}, {3, 200}, {5, 1000}, {7, 4096}, {2, 7176}, {16, 5120}, {64, 8192}, {9, 1001}};
}

TEST(TwinFused, AllWorldsAndShapesWithinTolerance) {
  for (int world = 1; world <= 8; ++world) {
    HostFabric fabric(world);
    for (FusedAlgo a : kTwins)
      for (auto [tokens, hidden] : shapes()) {
        FusedRun r{a, DType::bf16, world, tokens, hidden, 1};
        const CheckResult chk = run_fused_case(fabric, r);
        ASSERT_EQ(chk.wrong_elements, 0u) << describe(r);
        EXPECT_LE(chk.max_ulp_error, rmsnorm_tolerance_ulp(r.dtype)) << describe(r);
      }
  }
}

TEST(TwinFused, EveryDtypeAndUnalignedRows) {
  // 1001 and 7177 elements: rows are not 16-byte aligned, so packs are gathered element-wise.
  HostFabric fabric(4);
  for (FusedAlgo a : kTwins)
    for (DType t : kAllDTypes)
      for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{3, 1001}, {6, 7177}, {1, 7176}, {4, 9}}) {
        FusedRun r{a, t, 4, tokens, hidden, 1};
        ASSERT_EQ(run_fused_case(fabric, r).wrong_elements, 0u) << describe(r);
      }
}

TEST(TwinFused, BackToBackOpsAcrossTheEpochWrapAround) {
  HostFabric fabric(3);
  for (FusedAlgo a : kTwins)
    for (std::uint32_t start : {0xfffffffdu, 0u}) {
      FusedRun r{a, DType::fp16, 3, 7, 264, kTsan ? 4 : 9};
      r.blocks = 2;
      r.opt.start_epoch = start;
      ASSERT_EQ(run_fused_case(fabric, r).wrong_elements, 0u) << describe(r);
    }
}

TEST(TwinFused, ManyBlocksFewRows) {
  // More blocks asked than rows: the policy caps at the rows; fused-twoshot blocks whose owned
  // ranges are empty still take part in both barriers.
  HostFabric fabric(8);
  for (FusedAlgo a : kTwins)
    for (int blocks : {1, 3, algo::SymmLaunchPolicy::kHostSms}) {
      FusedRun r{a, DType::fp32, 8, 13, 96, 2};
      r.blocks = blocks;
      ASSERT_EQ(run_fused_case(fabric, r).wrong_elements, 0u) << describe(r);
    }
}

TEST(TwinFused, VariantsAndRanksAgreeBitwiseOnRandomInputs) {
  // Inputs that are not exact (normal random values), so every rounding step matters: the
  // rounding points of rmsnorm.hpp make unfused and fused outputs identical, bit for bit.
  constexpr int kWorld = 5;
  HostFabric fabric(kWorld);
  for (DType t : kAllDTypes) {
    const FusedRun shape{FusedAlgo::fused_oneshot, t, kWorld, 7, kTsan ? 520 : 2056, 1};
    const Case c = fused_case(shape);
    const std::size_t n = c.bytes / dtype_size(t);
    std::mt19937 gen(11);
    std::normal_distribution<float> dist(0.0f, 2.0f);
    auto random_bytes = [&](std::size_t count, float offset) {
      std::vector<std::uint8_t> b(count * dtype_size(t));
      for (std::size_t i = 0; i < count; ++i) store_from_f32(b.data(), i, t, offset + dist(gen));
      return b;
    };
    std::vector<std::vector<std::uint8_t>> x;
    for (int r = 0; r < kWorld; ++r) x.push_back(random_bytes(n, 0.0f));
    const auto residual = random_bytes(n, 0.0f);
    const auto weight = random_bytes(static_cast<std::size_t>(c.hidden), 1.0f);
    std::vector<std::uint8_t> first_y, first_r, y(c.bytes), r(c.bytes);
    for (FusedAlgo a : kTwins) {
      auto v = make_fused_twin(a, shape.opt);
      auto work = make_rmsnorm_workload(c, fabric, v->buffer_placement(), 7, 1e-6);
      const OpBuffers& b = work->buffers();
      for (int rank = 0; rank < kWorld; ++rank) {
        fabric.upload(rank, b.in->local(rank), x[rank].data(), c.bytes);
        fabric.upload(rank, b.residual->local(rank), residual.data(), c.bytes);
        fabric.upload(rank, b.weight->local(rank), weight.data(), weight.size());
      }
      v->prepare(c, fabric, b, Tuning{});
      fabric.run(op_of(*v));
      v->check_errors();
      for (int rank = 0; rank < kWorld; ++rank) {
        fabric.download(rank, y.data(), b.norm_out->local(rank), c.bytes);
        fabric.download(rank, r.data(), b.residual_out->local(rank), c.bytes);
        if (first_y.empty()) {
          first_y = y;
          first_r = r;
        }
        ASSERT_EQ(y, first_y) << fused_algo_name(a) << " rank " << rank << " " << dtype_name(t);
        ASSERT_EQ(r, first_r) << fused_algo_name(a) << " rank " << rank << " " << dtype_name(t);
      }
    }
    // Agreeing with each other is not enough (one shared mistake would agree): the bits must
    // also be the documented rounding model's (rounding_model.hpp).
    auto floats = [&](const std::vector<std::uint8_t>& b) {
      std::vector<float> v(b.size() / dtype_size(t));
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = load_as_f32(b.data(), i, t);
      return v;
    };
    std::vector<std::vector<float>> xs;
    for (const auto& xr : x) xs.push_back(floats(xr));
    const RmsnormModel want = rmsnorm_model(t, xs, floats(residual), floats(weight), c.tokens, c.hidden, 1e-6f);
    std::string first;
    EXPECT_EQ(count_model_mismatches(t, first_r.data(), want.r, &first), 0u) << dtype_name(t) << " residual_out: " << first;
    EXPECT_EQ(count_model_mismatches(t, first_y.data(), want.y, &first), 0u) << dtype_name(t) << " norm_out: " << first;
  }
}

TEST(TwinFused, MissingRankIsAnErrorNotAHang) {
  HostFabric fabric(3, 0.2);
  for (FusedAlgo a : {FusedAlgo::fused_oneshot, FusedAlgo::fused_twoshot}) {
    FusedRun r{a, DType::bf16, 3, 4, 128, 1};
    const Case c = fused_case(r);
    auto v = make_fused_twin(a, r.opt);
    auto work = make_rmsnorm_workload(c, fabric, v->buffer_placement(), 7, 1e-6);
    v->prepare(c, fabric, work->buffers(), Tuning{});
    fabric.run([&](int rank, Stream st) {
      if (rank != 1) v->launch(rank, st);
    });
    SCOPED_TRACE(describe(r));
    if (const auto e = test::thrown<CaseError>([&] { v->check_errors(); })) {  // none: no timeout recorded
      EXPECT_NE(std::string(e->what()).find("rank 1 never arrived"), std::string::npos) << e->what();
    }
  }
}

}  // namespace
}  // namespace arbench::testing
