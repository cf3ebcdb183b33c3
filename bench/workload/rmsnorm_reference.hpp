// The allreduce_rmsnorm family's oracle inputs, fp64 reference and tolerance (host only).
//
// Inputs from the seed: x (per rank) and residual (identical on every rank, as in tensor-parallel
// decoding) are small integers in [-4, 4]; weight is 1 + k/32, k in [-4, 4]. All are exact in
// bf16, fp16 and fp32, and so are s (|s| <= 32) and r (|r| <= 36): steps 1 and 2 of the math
// (include/arbench/algo/rmsnorm.hpp) are exact and residual_out must match to 0 ULP.
// The reference computes y = r / sqrt(mean(r^2) + eps) * w in fp64 from those exact r, with eps
// as the kernels see it (rounded to fp32).
// Tolerance, in ULPs of the output dtype at the reference value (docs/variants.md, "Correctness and tolerance"):
// bf16 and fp16: 1 ULP (the final rounding costs 0.5, the fp32 steps are ~2^-16 of an ULP);
// fp32: 8 ULP (about six fp32 roundings after an exact sum of squares: 2^24 > 36^2 * 8192).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "arbench/core/dtype.hpp"

namespace arbench {

double rmsnorm_tolerance_ulp(DType t);

float rmsnorm_x(std::uint64_t seed, int rank, std::size_t i);
float rmsnorm_residual(std::uint64_t seed, std::size_t i);
float rmsnorm_weight(std::uint64_t seed, std::size_t j);

struct RmsnormReference {
  std::vector<double> r;  // residual_out, tokens * hidden
  std::vector<double> y;  // norm_out
};

RmsnormReference rmsnorm_reference(DType t, int tokens, int hidden, int world, std::uint64_t seed, double eps);

// |got - want| in ULPs of t at |want|; infinite when got is not finite (e.g. an unwritten NaN).
double ulp_error(DType t, double got, double want);

}  // namespace arbench
