// A miniature harness for the fused twin tests: one HostFabric, the family's workload (oracle
// inputs, fp64 reference, tolerance, all-ranks-agree check), N ops back to back.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "workload/workload.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
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
  int threads = 0;    // Tuning::host_threads: 0 sequential, T block-faithful with T threads per block
  TwinOptions twin{};  // block-faithful: the SM count the launch policy sees
  bool back_to_back = false;  // ops in one fabric.run: see run_fused_variant
};

inline std::string describe(const FusedRun& r) {
  return std::string(fused_algo_name(r.algo)) + "/" + std::string(dtype_name(r.dtype)) + "/world " +
         std::to_string(r.world) + "/tokens " + std::to_string(r.tokens) + "/hidden " + std::to_string(r.hidden) +
         "/ops " + std::to_string(r.ops) + "/blocks " + std::to_string(r.blocks) + "/threads " +
         std::to_string(r.threads);
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

// r's workload (oracle inputs, outputs poisoned), with `v` (a twin of r.algo, any memory policy)
// prepared for it.
inline std::unique_ptr<Workload> prepare_fused_run(HostFabric& fabric, Variant& v, const FusedRun& r, double eps) {
  const Case c = fused_case(r);
  const Support s = v.supports(c, fabric);
  EXPECT_TRUE(s.ok) << describe(r) << ": " << s.reason;
  auto work = make_rmsnorm_workload(c, fabric, v.buffer_placement(), 7, eps);
  Tuning t;
  t.blocks = r.blocks;
  t.eps = eps;
  t.host_threads = r.threads;
  v.prepare(c, fabric, work->buffers(), t);
  return work;
}

// Runs r.ops ops of `v` (outputs re-poisoned before each) and checks after each. Returns the
// check of the last op; the first failure is reported with the case unless `report` is false.
// Back to back: the ops run in one fabric.run, every rank launching them in a row (a fast rank
// starts op e+1 while a peer still reads op e: slot and epoch reuse), on the same inputs (the
// fp64 reference is the workload's), each rank re-poisoning its own outputs before each launch;
// the outputs of the last op are checked.
inline CheckResult run_fused_variant(HostFabric& fabric, Variant& v, const FusedRun& r, double eps = 1e-6,
                                     bool report = true) {
  auto work = prepare_fused_run(fabric, v, r, eps);
  const std::vector<std::uint8_t> poison(fused_case(r).bytes, 0xff);  // NaN in every dtype
  const int rounds = r.back_to_back ? 1 : r.ops;
  CheckResult chk;
  for (int op = 0; op < rounds; ++op) {
    work->fill(fabric);
    if (!r.back_to_back) {
      fabric.run(op_of(v));
    } else {
      fabric.run([&](int rank, Stream st) {  // host fabric: each rank's phases run in order
        for (int i = 0; i < r.ops; ++i) {
          for (RankBuffers* out : {work->buffers().norm_out, work->buffers().residual_out})
            fabric.upload(rank, out->local(rank), poison.data(), poison.size());
          v.launch(rank, st);
          v.launch_after(rank, st);
        }
      });
    }
    v.check_errors();
    chk = work->check(fabric);
    if (chk.wrong_elements != 0) {
      if (report)
        ADD_FAILURE() << describe(r) << ": op " << op << ": " << chk.wrong_elements << " wrong; first: "
                      << chk.first_error;
      break;
    }
  }
  return chk;
}

// run_fused_variant with the production twin (HostMem).
inline CheckResult run_fused_case(HostFabric& fabric, const FusedRun& r, double eps = 1e-6) {
  auto v = make_fused_twin(r.algo, r.opt, r.twin);
  return run_fused_variant(fabric, *v, r, eps);
}

// Normal random inputs for case c (x per rank; residual and weight, around 1, the same on every
// rank), uploaded into `work`'s input buffers: values whose every rounding step matters, unlike
// the oracle's small integers.
inline void fill_random_rmsnorm_inputs(HostFabric& fabric, const Workload& work, const Case& c, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  auto random_bytes = [&](std::size_t count, float offset) {
    std::vector<std::uint8_t> b(count * dtype_size(c.dtype));
    for (std::size_t i = 0; i < count; ++i) store_from_f32(b.data(), i, c.dtype, offset + dist(gen));
    return b;
  };
  const OpBuffers& b = work.buffers();
  const auto residual = random_bytes(c.bytes / dtype_size(c.dtype), 0.0f);
  const auto weight = random_bytes(static_cast<std::size_t>(c.hidden), 1.0f);
  for (int rank = 0; rank < c.world; ++rank) {
    const auto x = random_bytes(c.bytes / dtype_size(c.dtype), 0.0f);
    fabric.upload(rank, b.in->local(rank), x.data(), x.size());
    fabric.upload(rank, b.residual->local(rank), residual.data(), residual.size());
    fabric.upload(rank, b.weight->local(rank), weight.data(), weight.size());
  }
}

// Every rank's norm_out, then every rank's residual_out, as bytes.
inline std::vector<std::uint8_t> download_outputs(HostFabric& fabric, const Workload& work, const Case& c) {
  std::vector<std::uint8_t> all, one(c.bytes);
  for (const RankBuffers* buf : {work.buffers().norm_out, work.buffers().residual_out})
    for (int rank = 0; rank < c.world; ++rank) {
      fabric.download(rank, one.data(), buf->local(rank), c.bytes);
      all.insert(all.end(), one.begin(), one.end());
    }
  return all;
}

}  // namespace arbench::testing
