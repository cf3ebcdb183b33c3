// The allreduce_rmsnorm workload's check: a correct run passes at 0 wrong elements; a planted
// error beyond the tolerance, a residual_out that is not exact, an unwritten (NaN) element, and
// a rank whose bits differ from rank 0's all fail.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "workload/rmsnorm_reference.hpp"
#include "tests/host/kernels/fused_twin_harness.hpp"

namespace arbench::testing {
namespace {

class PlantedError : public ::testing::Test {
 protected:
  static constexpr int kWorld = 3;
  PlantedError() : fabric_(kWorld) {}

  // Runs fused-oneshot once (must pass), then lets `plant` edit one rank's output and re-checks.
  template <class Plant>
  CheckResult run_and_plant(DType t, Plant&& plant) {
    FusedRun r{FusedAlgo::fused_oneshot, t, kWorld, 4, 256, 1};
    c_ = fused_case(r);
    v_ = make_fused_twin(r.algo, r.opt);
    work_ = make_rmsnorm_workload(c_, fabric_, Placement::local, 7, 1e-6);
    v_->prepare(c_, fabric_, work_->buffers(), Tuning{});
    fabric_.run(op_of(*v_));
    const CheckResult clean = work_->check(fabric_);
    EXPECT_EQ(clean.wrong_elements, 0u) << clean.first_error;
    EXPECT_LE(clean.max_ulp_error, rmsnorm_tolerance_ulp(t));
    plant();
    return work_->check(fabric_);
  }

  // Rewrites element i of `buf` on `rank` through f(value) (in the case's dtype).
  template <class F>
  void edit(RankBuffers* buf, int rank, std::size_t i, F&& f) {
    std::vector<std::uint8_t> host(c_.bytes);
    fabric_.download(rank, host.data(), buf->local(rank), c_.bytes);
    store_from_f32(host.data(), i, c_.dtype, f(load_as_f32(host.data(), i, c_.dtype)));
    fabric_.upload(rank, buf->local(rank), host.data(), c_.bytes);
  }

  HostFabric fabric_;
  Case c_;
  std::unique_ptr<Variant> v_;
  std::unique_ptr<Workload> work_;
};

TEST_F(PlantedError, TwoUlpOnEveryRankFailsTheTolerance) {
  const CheckResult chk = run_and_plant(DType::bf16, [&] {
    for (int rank = 0; rank < kWorld; ++rank)  // the same error everywhere: only the tolerance catches it
      edit(work_->buffers().norm_out, rank, 300, [&](float y) { return y + float(2 * ulp_of(DType::bf16, y)); });
  });
  EXPECT_EQ(chk.wrong_elements, std::size_t(kWorld));
  EXPECT_GE(chk.max_ulp_error, 1.5);
  EXPECT_NE(chk.first_error.find("norm_out token 1 element 44"), std::string::npos) << chk.first_error;
}

TEST_F(PlantedError, ResidualOutMustBeExact) {
  const CheckResult chk = run_and_plant(DType::fp32, [&] {
    for (int rank = 0; rank < kWorld; ++rank)
      edit(work_->buffers().residual_out, rank, 5, [](float r) { return std::nextafter(r, 1e9f); });
  });
  EXPECT_EQ(chk.wrong_elements, std::size_t(kWorld));
}

TEST_F(PlantedError, UnwrittenElementFails) {
  const CheckResult chk = run_and_plant(DType::fp16, [&] {
    for (int rank = 0; rank < kWorld; ++rank)
      edit(work_->buffers().norm_out, rank, 1023, [](float) { return std::nanf(""); });
  });
  EXPECT_EQ(chk.wrong_elements, std::size_t(kWorld));
}

TEST_F(PlantedError, RanksMustAgreeBitwise) {
  // Within tolerance (1 ULP in fp32 is far inside 8) but rank 2 differs from rank 0.
  const CheckResult chk = run_and_plant(DType::fp32, [&] {
    edit(work_->buffers().norm_out, 2, 17, [](float y) { return std::nextafter(y, 1e9f); });
  });
  EXPECT_EQ(chk.wrong_elements, 1u);
  EXPECT_NE(chk.first_error.find("differs from rank 0"), std::string::npos) << chk.first_error;
}

}  // namespace
}  // namespace arbench::testing
