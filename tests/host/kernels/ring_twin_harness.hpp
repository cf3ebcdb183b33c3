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
#include "kernels/fabric/host_fabric.hpp"
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
};

inline std::string describe(const RingRun& r) {
  std::string order;
  for (int x : r.order) order += (order.empty() ? "" : ",") + std::to_string(x);
  return "ring/" + std::string(dtype_name(r.dtype)) + "/world " + std::to_string(r.world) + "/elems " +
         std::to_string(r.elems) + "/ops " + std::to_string(r.ops) + "/channels " + std::to_string(r.channels) +
         "/chunk " + std::to_string(r.chunk) + "/order " + (order.empty() ? "default" : order) +
         (r.in_place ? "/in-place" : "") + "/start " + std::to_string(r.opt.start_seq);
}

// Runs r.ops ops through run_oracle_ops (twin_harness.hpp); `report` = false: the caller expects
// failures and only wants the count.
inline std::size_t run_ring_case(HostFabric& fabric, const RingRun& r, bool report = true) {
  auto v = make_ring_twin(r.opt);
  TwinCase tc = make_twin_case(fabric, *v, "ring", r.dtype, r.world, r.elems, r.in_place);
  Tuning t;
  t.ring_channels = r.channels;
  t.ring_chunk = r.chunk;
  t.ring_order = r.order;
  v->prepare(tc.c, fabric, tc.buffers, t);
  // The overrides are applied, not only accepted: results would be right without them too.
  if (r.channels > 0) {
    EXPECT_EQ(v->geometry().channels, r.channels) << describe(r);
  }
  if (r.chunk > 0) {
    EXPECT_EQ(v->geometry().chunk_packs, (r.chunk + 15) / 16) << describe(r);
  }
  if (!r.order.empty() && algo::ring_order_problem(r.order, r.world).empty()) {
    const auto recorded = v->settings();
    EXPECT_NE(std::find(recorded.begin(), recorded.end(), std::pair<std::string, std::string>("ring_order",
                                                                                        algo::ring_order_text(r.order))),
              recorded.end())
        << describe(r);
  }
  return run_oracle_ops(fabric, *v, *tc.buffers.in, *tc.buffers.out, r.dtype, r.elems, r.world, r.ops, 2000u,
                        describe(r), report);
}

}  // namespace arbench::testing
