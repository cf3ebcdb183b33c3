// Runs a prepared all-reduce or fused variant once on given inputs, on any fabric (the host
// twins' or a GPU's), and compares every rank's output with the rounding model bit for bit
// (rounding_model.hpp). Shared by tests/host/kernels/test_twin_rounding.cpp and
// tests/gpu/test_rounding_gpu.cpp, so the twins and the kernels are held to the same bits.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"
#include "tests/host/kernels/rounding_model.hpp"
#include "workload/workload.hpp"

namespace arbench::testing {

// One op of all-reduce `v` (named `name`, which picks the model) on inputs `x`; returns the
// elements, over all ranks, whose bits differ from the model (each rank's first one reported
// unless `report` is false). Also checks the model itself against fp64.
inline std::size_t allreduce_vs_model(Fabric& f, Variant& v, const std::string& name, DType t,
                                      const std::vector<std::vector<float>>& x, bool report) {
  const int world = f.world();
  Case c{name, Family::allreduce, t, world, x[0].size() * dtype_size(t), 0, 0, false};
  const Support s = v.supports(c, f);
  if (!s.ok) {
    ADD_FAILURE() << name << " does not run here: " << s.reason;
    return 0;
  }
  Tuning tuning;
  tuning.islands[world] = island_halves(world);  // what the island variants run on
  // ce-island runs on islands of one size only: the halves of an odd world it declines (its
  // Support says why, as `arbench list` does), so there is nothing to compare.
  if (!v.supports_with(c, f, tuning).ok && name == "ce-island") return 0;
  auto in = f.alloc(c.bytes, v.buffer_placement());
  auto out = f.alloc(c.bytes, v.buffer_placement());
  OpBuffers b;
  b.in = in.get();
  b.out = out.get();
  v.prepare(c, f, b, tuning);
  for (int r = 0; r < world; ++r) f.upload(r, in->local(r), to_bytes(t, x[std::size_t(r)]).data(), c.bytes);
  f.run(op_of(v));  // both phases: unfused-oneshot normalises in launch_after
  v.check_errors();
  const std::vector<float> want = allreduce_model(name, v.settings(), t, x);
  const bool rounds_on_the_way = name == "ring" || name == "ce-ring" || is_island_model(name);  // partials cross as t
  EXPECT_EQ(outside_fp64_bound(t, x, want, rounds_on_the_way), 0u) << name << ": the model itself is off";
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

struct FusedInputs {
  std::vector<std::vector<float>> x;  // per rank, [tokens][hidden]
  std::vector<float> residual, weight;
  int tokens = 1, hidden = 1;
  float eps = 1e-6f;
};

// Order-sensitive x, a small residual (so r keeps the bits in which a reordered step 1
// differs) and weights near 1.
inline FusedInputs fused_order_sensitive_inputs(DType t, int world, int tokens, int hidden, unsigned seed) {
  const std::size_t n = std::size_t(tokens) * std::size_t(hidden);
  return FusedInputs{order_sensitive_inputs(t, world, n, seed), normal_inputs(t, n, 0.0f, 0.01f, seed + 1),
                     normal_inputs(t, std::size_t(hidden), 1.0f, 0.2f, seed + 2), tokens, hidden, 1e-6f};
}

inline RmsnormModel rmsnorm_model(DType t, const FusedInputs& in, bool reversed = false,
                                  const std::vector<std::vector<int>>& islands = {}) {
  return rmsnorm_model(t, in.x, in.residual, in.weight, in.tokens, in.hidden, in.eps, reversed, islands);
}

// One op of fused variant `v` on `in`; every rank's residual_out and norm_out must be `want`'s.
inline void fused_vs_model(Fabric& f, Variant& v, const std::string& name, DType t, const FusedInputs& in,
                           const RmsnormModel& want) {
  const int world = f.world();
  const std::size_t n = std::size_t(in.tokens) * std::size_t(in.hidden);
  Case c{name, Family::allreduce_rmsnorm, t, world, n * dtype_size(t), in.tokens, in.hidden, false};
  auto work = make_rmsnorm_workload(c, f, v.buffer_placement(), 1, in.eps);
  const OpBuffers& b = work->buffers();
  for (int r = 0; r < world; ++r) {
    f.upload(r, b.in->local(r), to_bytes(t, in.x[std::size_t(r)]).data(), c.bytes);
    f.upload(r, b.residual->local(r), to_bytes(t, in.residual).data(), c.bytes);
    f.upload(r, b.weight->local(r), to_bytes(t, in.weight).data(), std::size_t(in.hidden) * dtype_size(t));
  }
  Tuning tuning;
  tuning.eps = in.eps;
  tuning.islands[world] = island_halves(world);  // what the island variants run on
  v.prepare(c, f, b, tuning);
  f.run(op_of(v));  // both phases: unfused-oneshot normalises in launch_after
  v.check_errors();
  std::vector<std::uint8_t> got(c.bytes);
  for (int r = 0; r < world; ++r) {
    std::string first;
    f.download(r, got.data(), b.residual_out->local(r), c.bytes);
    EXPECT_EQ(count_model_mismatches(t, got.data(), want.r, &first), 0u)
        << c.name() << " rank " << r << " residual_out: " << first;
    f.download(r, got.data(), b.norm_out->local(r), c.bytes);
    EXPECT_EQ(count_model_mismatches(t, got.data(), want.y, &first), 0u)
        << c.name() << " rank " << r << " norm_out: " << first;
  }
}

}  // namespace arbench::testing
