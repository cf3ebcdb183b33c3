// The lossy variants' workload (bench/workload/workload_lossy.cpp): the host twins of
// oneshot-fp8 and twoshot-fp8 pass it with their error figures filled; a twin with a planted
// scale fault fails it, naming the element and the bound; the figures travel between processes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../fake_world.hpp"
#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/fp8/fp8_twins.hpp"
#include "kernels/mem_host.hpp"
#include "workload/workload.hpp"

using namespace arbench;

namespace {

Case lossy_case(const char* variant, DType t, int world, std::size_t elems) {
  Case c;
  c.variant = variant;
  c.family = Family::allreduce;
  c.dtype = t;
  c.world = world;
  c.bytes = elems * dtype_size(t);
  return c;
}

// Three ops of the variant `make` builds, on fresh alternating inputs (as in a timed phase), then
// the check. The variant is made after the fabric, so it goes first (its buffers are the fabric's).
template <class Make>
CheckResult run_and_check(Make make, const Case& c, std::uint64_t seed) {
  HostFabric f(c.world);
  auto vp = make();
  Variant& v = *vp;
  auto work = make_lossy_workload(c, f, v.buffer_placement(), seed, v.wire_quantizations());
  v.prepare(c, f, work->buffers(), Tuning{});
  work->next_alternating_inputs(f);
  for (int op = 0; op < 3; ++op)
    f.run([&](int rank, Stream st) {
      work->before_op(rank);
      v.launch(rank, st);
    });
  v.check_errors();
  return work->check(f);
}

template <algo::Fault F>
struct FaultyMem : HostMem {
  static constexpr algo::Fault kFault = F;
};

}  // namespace

TEST(LossyWorkload, Fp8TwinsPassWithinTheBoundAndReportTheirError) {
  for (Fp8Algo a : {Fp8Algo::oneshot, Fp8Algo::twoshot})
    for (DType t : {DType::bf16, DType::fp16, DType::fp32})
      for (std::uint64_t seed : {0u, 1u, 2u, 3u}) {  // every input distribution (seed mod 4)
        const CheckResult r = run_and_check([a] { return make_fp8_twin(a); }, lossy_case(text_of(kFp8Text, a).name, t, 4, 1000), seed);
        EXPECT_TRUE(r.lossy);
        EXPECT_EQ(r.wrong_elements, 0u) << r.first_error;
        EXPECT_EQ(r.checked_elements, 4000u);
        EXPECT_GT(r.max_abs_err, 0.0);  // e4m3 has 3 mantissa bits: random inputs are not exact
        EXPECT_GT(r.sum_sq_ref, 0.0);
        EXPECT_LT(std::sqrt(r.sum_sq_err / r.sum_sq_ref), 0.1);  // 2^-4 per quantization at worst
      }
}

TEST(LossyWorkload, APlantedDoubledScaleFailsTheCheckNamingTheBound) {
  const CheckResult r = run_and_check(
      [] { return make_twin_with<FaultyMem<algo::Fault::fp8_scale_doubled>>(Fp8Algo::oneshot); }, lossy_case("oneshot-fp8", DType::bf16, 2, 512), 4);
  EXPECT_GT(r.wrong_elements, 0u);
  EXPECT_NE(r.first_error.find("above the bound"), std::string::npos) << r.first_error;
  EXPECT_NE(r.first_error.find("exact sum"), std::string::npos) << r.first_error;
}

TEST(LossyWorkload, InPlaceIsRefusedWithAReason) {
  HostFabric f(2);
  Case c = lossy_case("oneshot-fp8", DType::bf16, 2, 64);
  c.in_place = true;
  EXPECT_THROW(make_lossy_workload(c, f, Placement::symmetric, 1, 1), CaseError);
  auto v = make_fp8_twin(Fp8Algo::oneshot);
  const Support s = v->supports(c, f);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("out of place"), std::string::npos) << s.reason;
}

TEST(LossyWorkload, ErrorFiguresTravelBetweenProcessesInfAndNanIncluded) {
  FakeWorld other(0, 2);
  other.peers = {"", "0 0 0\n"};
  CheckResult peer;
  peer.lossy = true;
  peer.checked_elements = 10;
  peer.max_abs_err = std::numeric_limits<double>::infinity();
  peer.sum_sq_err = 2;
  peer.sum_sq_ref = 8;
  gather_check(other, peer);
  FakeWorld w(1, 2);
  w.peers = {other.last_mine, ""};
  CheckResult mine;
  mine.lossy = true;
  mine.checked_elements = 10;
  mine.max_abs_err = 0.5;
  mine.sum_sq_err = 1;
  mine.sum_sq_ref = 4;
  const CheckResult all = gather_check(w, mine);
  EXPECT_TRUE(all.lossy);
  EXPECT_TRUE(std::isinf(all.max_abs_err));
  EXPECT_DOUBLE_EQ(all.sum_sq_err, 3.0);
  EXPECT_DOUBLE_EQ(all.sum_sq_ref, 12.0);
}
