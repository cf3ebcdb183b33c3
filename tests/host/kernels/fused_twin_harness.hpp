// A miniature harness for the fused twin tests: one HostFabric, the family's workload (oracle
// inputs, fp64 reference, tolerance, all-ranks-agree check), N ops back to back.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "workload/workload.hpp"
#include "kernels/fabric/host_fabric.hpp"
#include "kernels/fused/fused_twins.hpp"
#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {

struct FusedRun {
  FusedAlgo algo = FusedAlgo::fused_oneshot;
  DType dtype = DType::bf16;
  int world = 2;
  int tokens = 1;
  int hidden = 128;
  int ops = 1;
  int blocks = 0;  // 0: the policy's choice
  FusedOptions opt{0, false};  // epochs from 0 (wrap tests override); no component timing
};

inline std::string describe(const FusedRun& r) {
  return std::string(fused_algo_name(r.algo)) + "/" + std::string(dtype_name(r.dtype)) + "/world " +
         std::to_string(r.world) + "/tokens " + std::to_string(r.tokens) + "/hidden " + std::to_string(r.hidden) +
         "/ops " + std::to_string(r.ops) + "/blocks " + std::to_string(r.blocks);
}

inline Case fused_case(const FusedRun& r) {
  Case c;
  c.variant = fused_algo_name(r.algo);
  c.family = Family::allreduce_rmsnorm;
  c.dtype = r.dtype;
  c.world = r.world;
  c.tokens = r.tokens;
  c.hidden = r.hidden;
  c.bytes = static_cast<std::size_t>(r.tokens) * static_cast<std::size_t>(r.hidden) * dtype_size(r.dtype);
  return c;
}

// Runs r.ops ops (outputs re-poisoned before each) and checks after each. Returns the check of
// the last op; the first failure is reported with the case.
inline CheckResult run_fused_case(HostFabric& fabric, const FusedRun& r, double eps = 1e-6) {
  const Case c = fused_case(r);
  auto v = make_fused_twin(r.algo, r.opt);
  const Support s = v->supports(c, fabric);
  EXPECT_TRUE(s.ok) << describe(r) << ": " << s.reason;
  auto work = make_rmsnorm_workload(c, fabric, v->buffer_placement(), 7, eps);
  Tuning t;
  t.blocks = r.blocks;
  t.eps = eps;
  v->prepare(c, fabric, work->buffers(), t);
  CheckResult chk;
  for (int op = 0; op < r.ops; ++op) {
    work->fill(fabric);
    fabric.run(op_of(*v));
    v->check_errors();
    chk = work->check(fabric);
    if (chk.wrong_elements != 0) {
      ADD_FAILURE() << describe(r) << ": op " << op << ": " << chk.wrong_elements << " wrong; first: " << chk.first_error;
      break;
    }
  }
  return chk;
}

}  // namespace arbench::testing
