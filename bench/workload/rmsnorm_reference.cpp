#include "workload/rmsnorm_reference.hpp"

#include <cmath>
#include <limits>

#include "arbench/core/oracle.hpp"

namespace arbench {
namespace {

// Distinct pseudo-ranks of oracle_value for the inputs every rank shares.
constexpr int kResidualStream = 1001;
constexpr int kWeightStream = 1002;

// v rounded to t as the kernels round (fp32 first, then the dtype's round-to-nearest-even).
double round_to(DType t, double v) {
  float tmp = 0;
  store_from_f32(&tmp, 0, t, static_cast<float>(v));
  return load_as_f32(&tmp, 0, t);
}

}  // namespace

double rmsnorm_tolerance_ulp(DType t) { return t == DType::fp32 ? 8.0 : 1.0; }

float rmsnorm_x(std::uint64_t seed, int rank, std::size_t i) { return float(oracle_value(seed, rank, i)); }
float rmsnorm_residual(std::uint64_t seed, std::size_t i) {
  return float(oracle_value(seed, kResidualStream, i));
}
float rmsnorm_weight(std::uint64_t seed, std::size_t j) {
  return 1.0f + float(oracle_value(seed, kWeightStream, j)) / 32.0f;
}

RmsnormReference rmsnorm_reference(DType t, int tokens, int hidden, int world, std::uint64_t seed, double eps) {
  const std::size_t h = static_cast<std::size_t>(hidden);
  const std::size_t n = static_cast<std::size_t>(tokens) * h;
  const double eps32 = static_cast<double>(static_cast<float>(eps));
  RmsnormReference ref;
  ref.r.resize(n);
  ref.y.resize(n);
  for (std::size_t row = 0; row < static_cast<std::size_t>(tokens); ++row) {
    double ss = 0;
    for (std::size_t j = 0; j < h; ++j) {
      const std::size_t i = row * h + j;
      double s = 0;
      for (int p = 0; p < world; ++p) s += rmsnorm_x(seed, p, i);
      const double r = round_to(t, round_to(t, s) + rmsnorm_residual(seed, i));
      ref.r[i] = r;
      ss += r * r;
    }
    const double inv = 1.0 / std::sqrt(ss / double(hidden) + eps32);
    for (std::size_t j = 0; j < h; ++j) {
      const std::size_t i = row * h + j;
      ref.y[i] = ref.r[i] * inv * rmsnorm_weight(seed, j);
    }
  }
  return ref;
}

double ulp_error(DType t, double got, double want) {
  if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
  return std::fabs(got - want) / ulp_of(t, want);
}

}  // namespace arbench
