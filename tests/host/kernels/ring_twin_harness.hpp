// A miniature harness for the ring twin tests: oracle inputs, N ops, bitwise check of every
// rank after every op (the same pattern as twin_harness.hpp, for RingVariant).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "arbench/core/oracle.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/ring/ring_twin.hpp"
#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {

struct RingRun {
  DType dtype = DType::bf16;
  int world = 2;
  std::size_t elems = 8;
  int ops = 1;
  int channels = 0;        // 0: the policy's choice
  std::size_t chunk = 0;   // bytes; 0: the policy's choice
  std::vector<int> order{};  // empty: 0..N-1
  bool in_place = false;
  RingOptions opt{};
  int threads = 0;    // Tuning::host_threads: 0 sequential, T block-faithful with T threads per block
  TwinOptions twin{};  // block-faithful: the SM count the channel cap sees
  bool back_to_back = false;  // ops in one fabric.run (run_oracle_ops_back_to_back)
};

inline std::string describe(const RingRun& r) {
  std::string order;
  for (int x : r.order) order += (order.empty() ? "" : ",") + std::to_string(x);
  return "ring/" + std::string(dtype_name(r.dtype)) + "/world " + std::to_string(r.world) + "/elems " +
         std::to_string(r.elems) + "/ops " + std::to_string(r.ops) + "/channels " + std::to_string(r.channels) +
         "/chunk " + std::to_string(r.chunk) + "/order " + (order.empty() ? "default" : order) +
         (r.in_place ? "/in-place" : "") + "/start " + std::to_string(r.opt.start_seq) + "/threads " +
         std::to_string(r.threads);
}

// r's case, buffers and tuning, with `v` (a ring twin, any memory policy) prepared for them.
inline TwinCase prepare_ring_run(HostFabric& fabric, Variant& v, const RingRun& r) {
  TwinCase tc = make_twin_case(fabric, v, "ring", r.dtype, r.world, r.elems, r.in_place);
  Tuning t;
  t.host_threads = r.threads;
  t.ring_channels = r.channels;
  t.ring_chunk = r.chunk;
  t.ring_order = r.order;
  v.prepare(tc.c, fabric, tc.buffers, t);
  return tc;
}

// The overrides of r are applied, not only accepted: results would be right without them too.
inline void expect_ring_overrides_applied(const RingVariant& v, const RingRun& r) {
  if (r.channels > 0) {
    EXPECT_EQ(v.geometry().channels, r.channels) << describe(r);
  }
  if (r.chunk > 0) {
    EXPECT_EQ(v.geometry().chunk_packs, (r.chunk + 15) / 16) << describe(r);
  }
  if (!r.order.empty() && algo::ring_order_problem(r.order, r.world).empty()) {
    const auto recorded = v.settings();
    EXPECT_NE(std::find(recorded.begin(), recorded.end(), std::pair<std::string, std::string>("ring_order",
                                                                                        algo::ring_order_text(r.order))),
              recorded.end())
        << describe(r);
  }
}

// Runs r.ops ops of `v` through run_oracle_ops (twin_harness.hpp), after checking that r's
// overrides were applied; `report` = false: the caller expects failures and only wants the count.
inline std::size_t run_ring_variant(HostFabric& fabric, RingVariant& v, const RingRun& r, bool report = true) {
  const TwinCase tc = prepare_ring_run(fabric, v, r);
  expect_ring_overrides_applied(v, r);
  const auto run = r.back_to_back ? run_oracle_ops_back_to_back : run_oracle_ops;
  return run(fabric, v, *tc.buffers.in, *tc.buffers.out, r.dtype, r.elems, r.world, r.ops, 2000u, describe(r), report);
}

// run_ring_variant with the production twin (HostMem).
inline std::size_t run_ring_case(HostFabric& fabric, const RingRun& r, bool report = true) {
  auto v = make_ring_twin(r.opt, r.twin);
  return run_ring_variant(fabric, *v, r, report);
}

}  // namespace arbench::testing
