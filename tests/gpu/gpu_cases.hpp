// The cases the GPU tests run through the harness, and what every one of them must show, kept in
// one place for the tests of the custom kernels on the cuda backend, of both symmetric-memory
// providers and of the island variants: they differ in fabrics and variants, never in what a
// case must get right.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "measure/fabric_factory.hpp"
#include "measure/harness.hpp"
#include "workload/rmsnorm_reference.hpp"

namespace arbench::testing {

// --timeout: a lost peer fails the case, it cannot hang the test.
constexpr double kGpuCaseTimeout = 5.0;
// Seconds: generous, but finite, for any one case.
constexpr double kGpuCaseBound = 60.0;

// Few samples, one CUDA graph of 4 ops per rank replayed (the pipelined regime), every op
// bounded by `timeout_s`.
inline RunConfig quick_gpu_config(double timeout_s = kGpuCaseTimeout) {
  RunConfig cfg;
  cfg.warmup = 2;
  cfg.samples = 5;
  cfg.pipelined_ops = 4;
  cfg.timeout_s = timeout_s;
  return cfg;
}

// The fabrics `arbench run` makes in one process (make_fabric), every wait bounded by `timeout_s`.
inline FabricCache gpu_fabrics(double timeout_s = kGpuCaseTimeout) {
  return FabricCache([timeout_s](Backend b, int w, const FabricEnv& env, const std::string& provider) {
    return make_fabric(b, w, env, timeout_s, solo_world(), provider);
  });
}

// `c` planned (it must be runnable: a failure names why not) and run with quick_gpu_config() on
// fresh gpu_fabrics(), both bounded by `timeout_s`.
inline CaseResult plan_and_run(Backend b, const Case& c, double timeout_s) {
  const RunConfig cfg = quick_gpu_config(timeout_s);  // the harness keeps a reference
  FabricCache fabrics = gpu_fabrics(timeout_s);
  Harness h(cfg, b, Registry::builtin(), fabrics);
  const Support s = h.plan(c);
  EXPECT_TRUE(s.ok) << c.name() << ": " << s.reason;
  return h.run(c);
}

// The custom all-reduce kernels (symmetric memory and the native ring).
inline const std::vector<std::string> kCustomAllreduce = {"oneshot-pull", "oneshot-push", "twoshot", "ring"};

// Each all-reduce variant at 1 KiB, 64 KiB plus a 6-byte tail and 1 MiB (bf16), fp16 in place
// with a tail, fp32; each fused one at 1 x 8192, 5 x 1001 (a ragged row) and 16 x 4096 (bf16).
// `tail` is appended to every variant's name (e.g. "[host-memory]").
inline std::vector<Case> gpu_cases(int world, const std::vector<std::string>& allreduce,
                                   const std::vector<std::string>& fused, const std::string& tail = "") {
  std::vector<Case> out;
  for (const std::string& v : allreduce) {
    for (std::size_t bytes : {std::size_t(1024), std::size_t(65536 + 6), std::size_t(1 << 20)})
      out.push_back(Case{v + tail, Family::allreduce, DType::bf16, world, bytes, 0, 0, false});
    out.push_back(Case{v + tail, Family::allreduce, DType::fp16, world, 4096 * 2 + 2, 0, 0, true});
    out.push_back(Case{v + tail, Family::allreduce, DType::fp32, world, 4000 * 4, 0, 0, false});
  }
  for (const std::string& v : fused)
    for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{1, 8192}, {5, 1001}, {16, 4096}})
      out.push_back(Case{v + tail, Family::allreduce_rmsnorm, DType::bf16, world,
                         std::size_t(tokens) * std::size_t(hidden) * 2, tokens, hidden, false});
  return out;
}

// Runs `c` on `h` and checks what every GPU case must show: it ran, every element is right, a
// fused case's norm is within its tolerance, graph replays were measured, and it took less than
// kGpuCaseBound. `who` (e.g. the provider) leads each message. The result, for further checks.
inline CaseResult run_checked(Harness& h, const Case& c, const std::string& who = "") {
  const std::string name = who.empty() ? c.name() : who + ": " + c.name();
  const auto t0 = std::chrono::steady_clock::now();
  const CaseResult r = h.run(c);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.ok) << name << ": " << r.reason;
  EXPECT_EQ(r.wrong_elements, 0u) << name;
  if (c.family == Family::allreduce_rmsnorm) {
    EXPECT_LE(r.max_ulp_error, rmsnorm_tolerance_ulp(c.dtype)) << name;
  }
  EXPECT_GT(r.pipelined_us, 0.0) << name << ": no graph replay measured";
  EXPECT_LT(took, kGpuCaseBound) << name;
  return r;
}

}  // namespace arbench::testing
