// A miniature harness for the copy-engine twin tests: symmetric inputs and outputs (the
// programs copy into peers' outputs), oracle inputs, N ops, bitwise check (twin_harness.hpp).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/ce/ce_twin.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {

struct CeRun {
  CeAlgo algo = CeAlgo::twoshot;
  DType dtype = DType::bf16;
  int world = 2;
  std::size_t elems = 8;
  int ops = 2;
  algo::CeConfig config{};
  bool in_place = false;
  std::vector<int> order{};  // ce-ring; empty: 0..N-1
  std::vector<int> islands{};  // ce-island: a label per rank
  bool back_to_back = false;
  CeOptions opt{};
};

inline std::string describe(const CeRun& r) {
  std::string order;
  for (int x : r.order) order += (order.empty() ? "" : ",") + std::to_string(x);
  return std::string(ce_algo_name(r.algo)) + "/" + std::string(dtype_name(r.dtype)) + "/world " +
         std::to_string(r.world) + "/elems " + std::to_string(r.elems) + "/ops " + std::to_string(r.ops) + "/chunk " +
         std::to_string(r.config.chunk) + "/streams " + std::to_string(r.config.streams) + "/slots " +
         std::to_string(r.config.slots) + (r.in_place ? "/in-place" : "") + "/order " +
         (order.empty() ? "default" : order) + (r.back_to_back ? "/back-to-back" : "") + "/islands " +
         (r.islands.empty() ? "none" : algo::islands_text(r.islands));
}

// r's case on `fabric`, `v` prepared for it (symmetric buffers).
inline TwinCase prepare_ce_run(HostFabric& fabric, CeVariant& v, const CeRun& r) {
  TwinCase t;
  t.c.variant = ce_algo_name(r.algo);
  t.c.dtype = r.dtype;
  t.c.world = r.world;
  t.c.bytes = r.elems * dtype_size(r.dtype);
  t.c.in_place = r.in_place;
  t.in = fabric.alloc(t.c.bytes, Placement::symmetric);
  if (!r.in_place) t.out = fabric.alloc(t.c.bytes, Placement::symmetric);
  t.buffers.in = t.in.get();
  t.buffers.out = r.in_place ? t.in.get() : t.out.get();
  Tuning tuning;
  tuning.ring_order = r.order;
  if (!r.islands.empty()) tuning.islands[r.world] = r.islands;
  const Support s = v.supports_with(t.c, fabric, tuning);
  EXPECT_TRUE(s.ok) << s.reason;
  v.prepare(t.c, fabric, t.buffers, tuning);
  return t;
}

// Runs r.ops ops of a fresh twin; returns the wrong elements (reported unless `report` is false).
inline std::size_t run_ce_case(HostFabric& fabric, const CeRun& r, bool report = true) {
  CeOptions opt = r.opt;
  opt.config = r.config;
  auto v = make_ce_twin(r.algo, opt);
  const TwinCase tc = prepare_ce_run(fabric, *v, r);
  const auto run = r.back_to_back ? run_oracle_ops_back_to_back : run_oracle_ops;
  return run(fabric, *v, *tc.buffers.in, *tc.buffers.out, r.dtype, r.elems, r.world, r.ops, 3000u, describe(r), report);
}

}  // namespace arbench::testing
