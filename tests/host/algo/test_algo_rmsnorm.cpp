// The residual-add + RMSNorm math of include/arbench/algo/rmsnorm.hpp against hand-computed rows:
// plain rows, weights, eps dominance, all-zero rows, large values (no fp32 overflow), and the
// documented order of the sum of squares (lanes, then a fixed tree), bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "arbench/algo/rmsnorm.hpp"
#include "kernels/mem_host.hpp"

namespace arbench {
namespace {

struct RowOut {
  std::vector<float> r, y;
};

// One row through add_norm_row with one thread (as the twins run it): s and residual given.
template <DType D>
RowOut norm_row(const std::vector<float>& s, const std::vector<float>& residual, const std::vector<float>& w,
                float eps) {
  const std::size_t h = s.size();
  const std::size_t es = dtype_size(D);
  std::vector<std::uint8_t> sb(h * es), rb(h * es), wb(h * es), yo(h * es), ro(h * es);
  for (std::size_t i = 0; i < h; ++i) {
    store_from_f32(sb.data(), i, D, s[i]);
    store_from_f32(rb.data(), i, D, residual[i]);
    store_from_f32(wb.data(), i, D, w[i]);
  }
  algo::NormIo io;
  io.residual = rb.data();
  io.weight = wb.data();
  io.norm_out = yo.data();
  io.residual_out = ro.data();
  io.hidden = static_cast<int>(h);
  io.eps = eps;
  std::vector<float> lanes(algo::kNormLanes);
  algo::add_norm_row<HostMem, D>(io, 0, algo::BlockCtx{0, 1, 0, 1}, lanes.data(),
                                 [&](std::size_t k) { return algo::load_row_pack<D>(sb.data(), io.hidden, 0, k); });
  RowOut out;
  for (std::size_t i = 0; i < h; ++i) {
    out.r.push_back(load_as_f32(ro.data(), i, D));
    out.y.push_back(load_as_f32(yo.data(), i, D));
  }
  return out;
}

double ulps(DType t, double got, double want) { return std::fabs(got - want) / ulp_of(t, want); }

TEST(AlgoRmsnorm, HandComputedRow) {
  // s = (3, 4): mean(r^2) = 12.5, y = r / sqrt(12.5) = (0.848528137..., 1.131370849...).
  const RowOut o = norm_row<DType::fp32>({3, 4}, {0, 0}, {1, 1}, 0.0f);
  EXPECT_EQ(o.r[0], 3.0f);
  EXPECT_EQ(o.r[1], 4.0f);
  EXPECT_LE(ulps(DType::fp32, o.y[0], 0.8485281374238570), 2.0);
  EXPECT_LE(ulps(DType::fp32, o.y[1], 1.1313708498984760), 2.0);
}

TEST(AlgoRmsnorm, ResidualAndWeight) {
  // r = s + residual = (2, 3, 4, 5): mean(r^2) = 13.5; y = r * w / sqrt(13.5).
  const RowOut o = norm_row<DType::bf16>({1, 2, 3, 4}, {1, 1, 1, 1}, {1, 0.5f, 2, 1}, 1e-6f);
  const double inv = 1.0 / std::sqrt(13.5 + 1e-6);
  const double want[] = {2 * inv, 3 * 0.5 * inv, 4 * 2 * inv, 5 * inv};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(o.r[i], float(i + 2));
    EXPECT_LE(ulps(DType::bf16, o.y[i], want[i]), 0.5 + 1e-3) << i;  // one correct rounding
  }
}

TEST(AlgoRmsnorm, EpsDominates) {
  // mean(r^2) = 1e-6 next to eps = 1: y = r / sqrt(1 + 1e-6), which is 5e-10 (about 4 fp32 ULP)
  // below r. The tolerance (1 ULP) is smaller than that effect, so dropping mean(r^2) (y = r) or
  // dropping eps (y = 1) both fail.
  std::vector<float> s(64, 1e-3f), zero(64, 0.0f), one(64, 1.0f);
  const RowOut o = norm_row<DType::fp32>(s, zero, one, 1.0f);
  const double want = double(1e-3f) / std::sqrt(1.0 + double(1e-3f) * double(1e-3f));
  ASSERT_GT(ulps(DType::fp32, 1e-3f, want), 3.0);  // the effect the test is about
  for (float y : o.y) EXPECT_LE(ulps(DType::fp32, y, want), 1.0);
}

TEST(AlgoRmsnorm, AllZeroRowIsZeroNotNan) {
  std::vector<float> zero(8192, 0.0f), one(8192, 1.0f);
  for (const RowOut& o : {norm_row<DType::bf16>(zero, zero, one, 1e-6f), norm_row<DType::fp16>(zero, zero, one, 1e-6f)})
    for (std::size_t i = 0; i < zero.size(); ++i) {
      ASSERT_EQ(o.y[i], 0.0f) << i;
      ASSERT_EQ(o.r[i], 0.0f) << i;
    }
}

TEST(AlgoRmsnorm, LargeValuesDoNotOverflowFp32) {
  // bf16: |r| = 1e15 -> r^2 = 1e30, sum over 8192 = 8e33 < FLT_MAX. fp16: r = 30000 + 30000 =
  // 60000 (fp16 would overflow r^2, fp32 does not). Both normalise to y = +-1.
  std::vector<float> big(8192), zero(8192, 0.0f), one(8192, 1.0f), half(8192, 30000.0f);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = i % 2 ? -1e15f : 1e15f;
  const RowOut b = norm_row<DType::bf16>(big, zero, one, 1e-6f);
  const RowOut h = norm_row<DType::fp16>(half, half, one, 1e-6f);
  for (std::size_t i = 0; i < big.size(); ++i) {
    ASSERT_TRUE(std::isfinite(b.y[i]) && std::isfinite(h.y[i])) << i;
    ASSERT_LE(ulps(DType::bf16, b.y[i], i % 2 ? -1.0 : 1.0), 1.0) << i;
    ASSERT_EQ(h.r[i], 60000.0f) << i;
    ASSERT_LE(ulps(DType::fp16, h.y[i], 1.0), 1.0) << i;
  }
}

TEST(AlgoRmsnorm, FollowsTheDocumentedOrderBitForBit) {
  // Random fp32 row of 7168 + 8 + 3 elements (a partial last pack): recompute every step as
  // rmsnorm.hpp documents it and require the same bits.
  const int h = 7179;
  std::mt19937 gen(5);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> s(h), res(h), w(h);
  for (int i = 0; i < h; ++i) {
    s[i] = dist(gen);
    res[i] = dist(gen);
    w[i] = 1.0f + dist(gen) / 10.0f;
  }
  const RowOut o = norm_row<DType::fp32>(s, res, w, 1e-5f);
  std::vector<float> lanes(algo::kNormLanes, 0.0f);
  for (int i = 0; i < h; ++i) {
    ASSERT_EQ(o.r[i], s[i] + res[i]) << i;
    float& lane = lanes[(i / 4) % algo::kNormLanes];  // 4 fp32 per pack
    lane = lane + o.r[i] * o.r[i];
  }
  for (int stride = algo::kNormLanes / 2; stride > 0; stride /= 2)
    for (int l = 0; l < stride; ++l) lanes[l] = lanes[l] + lanes[l + stride];
  const float inv = 1.0f / std::sqrt(lanes[0] / float(h) + 1e-5f);
  for (int i = 0; i < h; ++i) ASSERT_EQ(o.y[i], (o.r[i] * inv) * w[i]) << i;
}

}  // namespace
}  // namespace arbench
