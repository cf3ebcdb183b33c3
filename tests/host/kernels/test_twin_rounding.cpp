// Rounding on inputs that are not exact: every all-reduce host twin in the registry and the
// fused family's twins, on random non-integer inputs whose sum depends on the order, against
// the documented rounding model (rounding_model.hpp) bit for bit, and the model against fp64.
// The oracle's small integers are exact in any order, so they cannot catch a kernel that
// reorders its sum; these inputs do, and the planted reversed-order reduction below shows it.
// Also built with ThreadSanitizer (label tsan), on fewer elements.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/fabric/host_fabric.hpp"
#include "kernels/fused/fused_twins.hpp"
#include "tests/host/kernels/rounding_model.hpp"
#include "tests/host/kernels/twin_harness.hpp"
#include "workload/rmsnorm_reference.hpp"
#include "workload/workload.hpp"

namespace arbench::testing {
namespace {

constexpr std::size_t kElems = kTsan ? 1001 : 8 * 1000 + 7;  // a tail: not a multiple of world x pack

// The planted bug: an all-reduce that sums the ranks in reverse order (N-1 .. 0).
class ReversedSum final : public Variant {
 public:
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning&) override {
    c_ = c;
    world_ = f.world();
    b_ = b;
  }
  void launch(int rank, Stream) override {
    for (std::size_t i = 0; i < c_.elements(); ++i) {
      float s = load_as_f32(b_.in->peer(rank, world_ - 1), i, c_.dtype);
      for (int p = world_ - 2; p >= 0; --p) s += load_as_f32(b_.in->peer(rank, p), i, c_.dtype);
      store_from_f32(b_.out->local(rank), i, c_.dtype, s);
    }
  }

 private:
  Case c_;
  int world_ = 1;
  OpBuffers b_;
};

// Runs one op of `v` on inputs `x` and returns the mismatches of every rank's output against the
// model for `name` (the first one reported unless `report` is false).
std::size_t mismatches_vs_model(HostFabric& f, Variant& v, const std::string& name, DType t,
                                const std::vector<std::vector<float>>& x, bool report) {
  const int world = f.world();
  Case c{name, Family::allreduce, t, world, x[0].size() * dtype_size(t), 0, 0, false};
  if (!v.supports(c, f).ok) return 0;
  auto in = f.alloc(c.bytes, v.buffer_placement());
  auto out = f.alloc(c.bytes, v.buffer_placement());
  OpBuffers b;
  b.in = in.get();
  b.out = out.get();
  v.prepare(c, f, b, Tuning{});
  for (int r = 0; r < world; ++r) f.upload(r, in->local(r), to_bytes(t, x[std::size_t(r)]).data(), c.bytes);
  f.run([&](int rank, Stream s) { v.launch(rank, s); });
  v.check_errors();
  const std::vector<float> want = allreduce_model(name, v.settings(), t, x);
  EXPECT_EQ(outside_fp64_bound(t, x, want, name == "ring"), 0u) << name << ": the model itself is off";
  std::vector<std::uint8_t> got(c.bytes);
  std::size_t bad = 0;
  for (int r = 0; r < world; ++r) {
    f.download(r, got.data(), out->local(r), c.bytes);
    std::string first;
    const std::size_t n = count_model_mismatches(t, got.data(), want, &first);
    if (n != 0 && report)
      ADD_FAILURE() << name << "/" << dtype_name(t) << "/world " << world << " rank " << r << ": " << n
                    << " elements off the rounding model; first: " << first;
    bad += n;
  }
  return bad;
}

TEST(TwinRounding, InputsAreOrderSensitive) {
  // Without this the tests below could not tell a reordered sum from the right one.
  for (DType t : kAllDTypes)
    for (int world : {3, 5, 8}) {
      const auto x = order_sensitive_inputs(t, world, kElems, 17);
      const auto fwd = rank_order_model(t, x), rev = rank_order_model(t, x, /*reversed=*/true);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < fwd.size(); ++i) differ += same_bits(fwd[i], rev[i]) ? 0 : 1;
      EXPECT_GT(differ, kElems / 20) << dtype_name(t) << " world " << world;
    }
}

TEST(TwinRounding, EveryAllReduceTwinFollowsTheDocumentedOrderBitwise) {
  Registry reg;
  register_host_variants(reg);
  for (int world : {2, 3, 5, 8}) {
    HostFabric f(world);
    for (DType t : kAllDTypes) {
      const auto x = order_sensitive_inputs(t, world, kElems, 100u + unsigned(world));
      int twins = 0;
      for (const auto& e : reg.entries()) {
        if (e.family != Family::allreduce || !e.host) continue;
        auto v = e.host();
        mismatches_vs_model(f, *v, e.name, t, x, /*report=*/true);
        ++twins;
      }
      EXPECT_GE(twins, 5) << "reference, oneshot-pull, oneshot-push, twoshot and ring";
    }
  }
}

TEST(TwinRounding, AReversedOrderIsCaught) {
  for (int world : {3, 8}) {
    HostFabric f(world);
    for (DType t : kAllDTypes) {
      const auto x = order_sensitive_inputs(t, world, kElems, 7);
      ReversedSum v;
      EXPECT_GT(mismatches_vs_model(f, v, "reversed", t, x, /*report=*/false), 0u) << dtype_name(t);
    }
  }
}

TEST(TwinRounding, FusedTwinsFollowTheModelBitwise) {
  constexpr int kWorld = 5, kTokens = 3;
  const int hidden = kTsan ? 520 : 2056 + 8;
  HostFabric f(kWorld);
  for (DType t : kAllDTypes) {
    const std::size_t n = std::size_t(kTokens) * std::size_t(hidden);
    const auto x = order_sensitive_inputs(t, kWorld, n, 23);
    // A small residual, so r keeps the bits in which a reordered step 1 differs.
    const auto residual = normal_inputs(t, n, 0.0f, 0.01f, 5);
    const auto weight = normal_inputs(t, std::size_t(hidden), 1.0f, 0.2f, 6);
    const float eps = 1e-6f;
    const RmsnormModel want = rmsnorm_model(t, x, residual, weight, kTokens, hidden, eps);
    const RmsnormModel planted = rmsnorm_model(t, x, residual, weight, kTokens, hidden, eps, /*reversed=*/true);
    std::size_t planted_differs = 0;
    for (std::size_t i = 0; i < n; ++i) planted_differs += same_bits(want.r[i], planted.r[i]) ? 0 : 1;
    EXPECT_GT(planted_differs, n / 10) << "a reversed step 1 must change residual_out";
    // The model against fp64 from its own rounded r: within the family's tolerance.
    for (std::size_t row = 0; row < std::size_t(kTokens); ++row) {
      double ss = 0;
      for (int j = 0; j < hidden; ++j) ss += double(want.r[row * hidden + j]) * want.r[row * hidden + j];
      const double inv = 1.0 / std::sqrt(ss / hidden + double(eps));
      for (int j = 0; j < hidden; ++j) {
        const std::size_t i = row * std::size_t(hidden) + std::size_t(j);
        ASSERT_LE(ulp_error(t, want.y[i], double(want.r[i]) * inv * weight[std::size_t(j)]), rmsnorm_tolerance_ulp(t))
            << dtype_name(t) << " element " << i;
      }
    }
    for (FusedAlgo a : {FusedAlgo::unfused_oneshot, FusedAlgo::fused_oneshot, FusedAlgo::fused_twoshot}) {
      auto v = make_fused_twin(a, FusedOptions{0, false});
      Case c{fused_algo_name(a), Family::allreduce_rmsnorm, t, kWorld, n * dtype_size(t), kTokens, hidden, false};
      auto work = make_rmsnorm_workload(c, f, v->buffer_placement(), 1, eps);
      const OpBuffers& b = work->buffers();
      for (int r = 0; r < kWorld; ++r) {
        f.upload(r, b.in->local(r), to_bytes(t, x[std::size_t(r)]).data(), c.bytes);
        f.upload(r, b.residual->local(r), to_bytes(t, residual).data(), c.bytes);
        f.upload(r, b.weight->local(r), to_bytes(t, weight).data(), std::size_t(hidden) * dtype_size(t));
      }
      Tuning tuning;
      tuning.eps = eps;
      v->prepare(c, f, b, tuning);
      f.run([&](int rank, Stream s) { v->launch(rank, s); });
      v->check_errors();
      std::vector<std::uint8_t> got(c.bytes);
      for (int r = 0; r < kWorld; ++r) {
        std::string first;
        f.download(r, got.data(), b.residual_out->local(r), c.bytes);
        EXPECT_EQ(count_model_mismatches(t, got.data(), want.r, &first), 0u)
            << c.name() << " rank " << r << " residual_out: " << first;
        f.download(r, got.data(), b.norm_out->local(r), c.bytes);
        EXPECT_EQ(count_model_mismatches(t, got.data(), want.y, &first), 0u)
            << c.name() << " rank " << r << " norm_out: " << first;
      }
    }
  }
}

}  // namespace
}  // namespace arbench::testing
