// A miniature harness for the island twin tests: a HostFabric whose ranks sit in islands (with or
// without P2P between them: the two cross-island paths), the island variants' tuning, and the
// all-reduce and fused checks of twin_harness.hpp / fused_twin_harness.hpp.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/island/island_twins.hpp"
#include "tests/host/kernels/fused_twin_harness.hpp"
#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {

// Two islands: ranks 0..first-1 and first..world-1 (first = 0: halves, the first the smaller).
inline std::vector<int> two_islands(int world, int first = 0) {
  if (first <= 0) first = world / 2;
  std::vector<int> labels;
  for (int r = 0; r < world; ++r) labels.push_back(r < first ? 0 : 1);
  return labels;
}

struct IslandRun {
  IslandAlgo algo = IslandAlgo::oneshot;
  DType dtype = DType::bf16;
  int world = 4;
  std::vector<int> islands;  // a label per rank; empty: two_islands(world)
  bool cross_p2p = true;     // false: the islands lack P2P, the crossing goes through host memory
  std::size_t elems = 8;     // all-reduce
  int tokens = 1;            // fused
  int hidden = 64;
  int ops = 1;
  bool in_place = false;
  int blocks = 0;
  int threads = 0;  // Tuning::host_threads
  IslandOptions opt{};
  TwinOptions twin{};
  bool back_to_back = false;
};

inline std::vector<int> labels_of(const IslandRun& r) { return r.islands.empty() ? two_islands(r.world) : r.islands; }

inline std::string describe(const IslandRun& r) {
  return std::string(island_algo_name(r.algo)) + "/" + std::string(dtype_name(r.dtype)) + "/world " +
         std::to_string(r.world) + "/islands " + algo::islands_text(labels_of(r)) +
         (r.cross_p2p ? "/p2p" : "/host-memory") + "/elems " + std::to_string(r.elems) + "/tokens " +
         std::to_string(r.tokens) + "/hidden " + std::to_string(r.hidden) + "/ops " + std::to_string(r.ops) +
         (r.in_place ? "/in-place" : "") + "/blocks " + std::to_string(r.blocks) + "/threads " +
         std::to_string(r.threads) + "/start " + std::to_string(r.opt.start_epoch);
}

inline std::unique_ptr<HostFabric> island_fabric(const IslandRun& r, double timeout_s, CrossLinkModel link = {}) {
  HostFabricOptions o;
  o.island_of = labels_of(r);
  o.cross_island_p2p = r.cross_p2p;
  o.link = link;
  return std::make_unique<HostFabric>(r.world, timeout_s, o);
}

inline Tuning island_tuning(const IslandRun& r) {
  Tuning t;
  t.blocks = r.blocks;
  t.host_threads = r.threads;
  t.islands[r.world] = labels_of(r);
  return t;
}

inline Case island_case(const IslandRun& r) {
  Case c;
  c.variant = island_algo_name(r.algo);
  c.dtype = r.dtype;
  c.world = r.world;
  if (is_fused(r.algo)) {
    c.family = Family::allreduce_rmsnorm;
    c.tokens = r.tokens;
    c.hidden = r.hidden;
    c.bytes = static_cast<std::size_t>(r.tokens) * static_cast<std::size_t>(r.hidden) * dtype_size(r.dtype);
  } else {
    c.bytes = r.elems * dtype_size(r.dtype);
    c.in_place = r.in_place;
  }
  return c;
}

// Runs r (an all-reduce or the fused form) with `v` on `fabric`: every op checked against the
// oracle bitwise (fused: the last op within the ULP bound, every rank bitwise equal). Returns
// the wrong elements; `report` = false: the caller expects failures and only wants the count.
inline std::size_t run_island_variant(HostFabric& fabric, IslandVariant& v, const IslandRun& r, bool report = true) {
  const Case c = island_case(r);
  const Tuning t = island_tuning(r);
  const Support s = v.supports_with(c, fabric, t);
  EXPECT_TRUE(s.ok) << describe(r) << ": " << s.reason;
  if (!s.ok) return 1;
  if (is_fused(r.algo)) {
    auto work = make_rmsnorm_workload(c, fabric, v.buffer_placement(), 7, 1e-6);
    v.prepare(c, fabric, work->buffers(), t);
    const std::vector<std::uint8_t> poison(c.bytes, 0xff);
    work->fill(fabric);
    // Only the last op is checked, so the earlier ops run on x with every sign flipped: a rank
    // that reads a slot's lines of two ops before (a skipped or torn wait) then sums the wrong
    // values, where with the same x every op it would read equal ones and pass unseen. Each rank
    // changes only its own x between its own ops (peers read its pushed lines, never its x).
    RankBuffers& x = *work->buffers().in;
    const std::size_t es = dtype_size(r.dtype);
    std::vector<std::vector<std::uint8_t>> x_real(r.world), x_flipped(r.world);
    for (int rank = 0; rank < r.world; ++rank) {
      x_real[rank].resize(c.bytes);
      fabric.download(rank, x_real[rank].data(), x.local(rank), c.bytes);
      x_flipped[rank] = x_real[rank];
      for (std::size_t i = es - 1; i < c.bytes; i += es) x_flipped[rank][i] ^= 0x80u;  // the sign bit
    }
    const int ops = r.back_to_back ? r.ops : 1;
    fabric.run([&](int rank, Stream st) {
      for (int i = 0; i < ops; ++i) {
        const auto& xi = i + 1 < ops ? x_flipped[rank] : x_real[rank];
        fabric.upload(rank, x.local(rank), xi.data(), xi.size());
        for (RankBuffers* out : {work->buffers().norm_out, work->buffers().residual_out})
          fabric.upload(rank, out->local(rank), poison.data(), poison.size());
        v.launch(rank, st);
      }
    });
    for (int i = 1; !r.back_to_back && i < r.ops; ++i) fabric.run(op_of(v));
    v.check_errors();
    const CheckResult chk = work->check(fabric);
    if (chk.wrong_elements != 0 && report) ADD_FAILURE() << describe(r) << ": " << chk.first_error;
    return chk.wrong_elements;
  }
  auto in = fabric.alloc(c.bytes, Placement::local);
  auto out = r.in_place ? nullptr : fabric.alloc(c.bytes, Placement::local);
  OpBuffers b;
  b.in = in.get();
  b.out = r.in_place ? in.get() : out.get();
  v.prepare(c, fabric, b, t);
  const auto run = r.back_to_back ? run_oracle_ops_back_to_back : run_oracle_ops;
  return run(fabric, v, *b.in, *b.out, r.dtype, r.elems, r.world, r.ops, 2000u, describe(r), report);
}

// run_island_variant with the production twin (HostMem) on a fabric made for r.
inline std::size_t run_island_case(const IslandRun& r, double timeout_s = 30.0) {
  auto fabric = island_fabric(r, timeout_s);
  auto v = make_island_twin(r.algo, r.opt, r.twin);
  return run_island_variant(*fabric, *v, r);
}

}  // namespace arbench::testing
