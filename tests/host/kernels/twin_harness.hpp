// A miniature harness for the twin tests: one HostFabric, oracle inputs, N ops, bitwise check.
// (The real harness lives in bench/; these tests must not depend on it.)
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/oracle.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/symm/symm_twins.hpp"

namespace arbench::testing {

// True when built with ThreadSanitizer: the same tests then run on smaller sizes.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kTsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kTsan = true;
#else
inline constexpr bool kTsan = false;
#endif
#else
inline constexpr bool kTsan = false;
#endif

// Element counts for the pipelined twins (ring, ce-*) at `world` ranks: one element, a partial
// pack, around world x pack, odd mid sizes, several rounds (not under TSan).
inline std::vector<std::size_t> pipelined_sizes_for(DType t, int world) {
  const std::size_t per = 16 / dtype_size(t);
  const std::size_t wp = per * static_cast<std::size_t>(world);
  std::vector<std::size_t> s = {1, per - 1, wp + 1, 1000};
  if (!kTsan) s.push_back(3 * wp * 17 + 5);
  return s;
}

// Wall-clock slack for a "returned within its bound" check on a loaded 2-core runner under
// ThreadSanitizer, where waking threads were seen seconds late. Still far below what a missing or
// mis-scaled bound costs (the host fabric aborts the process after 4 x timeout + 60 s; a bound
// read in the wrong unit is 1000x), and paired with a lower bound (the waits did wait).
inline constexpr double kWakeUpSlackS = 15.0;

// Runs `ops` ops of a prepared variant, each with fresh oracle inputs (seed seed_base + op)
// uploaded into `in`, and checks every rank's `out` bitwise after each op. Returns the number of
// wrong elements over all ops and ranks; each failure is reported (naming `what`) unless
// `report` is false (for tests that expect failures and only want the count). Errors recorded
// by a protocol are rethrown by check_errors() (CaseError).
inline std::size_t run_oracle_ops(HostFabric& fabric, Variant& v, const RankBuffers& in, const RankBuffers& out,
                                  DType dtype, std::size_t elems, int world, int ops, std::uint64_t seed_base,
                                  const std::string& what, bool report = true) {
  const std::size_t bytes = elems * dtype_size(dtype);
  std::size_t wrong = 0;
  std::vector<std::uint8_t> host(bytes);
  for (int op = 0; op < ops; ++op) {
    const std::uint64_t seed = seed_base + static_cast<std::uint64_t>(op);
    for (int rank = 0; rank < world; ++rank) {
      fill_oracle(host.data(), dtype, elems, seed, rank);
      fabric.upload(rank, in.local(rank), host.data(), bytes);
    }
    fabric.run([&](int rank, Stream st) { v.launch(rank, st); });
    v.check_errors();
    const auto want = oracle_sum(dtype, elems, seed, world);
    for (int rank = 0; rank < world; ++rank) {
      fabric.download(rank, host.data(), out.local(rank), bytes);
      const std::size_t w = count_wrong(host.data(), want.data(), dtype, elems);
      if (w != 0 && report) ADD_FAILURE() << what << ": op " << op << " rank " << rank << ": " << w << " wrong";
      wrong += w;
    }
  }
  return wrong;
}

// Runs `ops` ops of a prepared variant back to back, as a GPU stream runs them: in one
// fabric.run, every rank writes its next oracle input (seed seed_base + op), launches, and keeps a
// copy of its output, without waiting for its peers in between. So a fast rank starts op e+1
// while a slow one still reads op e's data, which is what double-buffered slots and epochs are
// for. Then every op's outputs are checked bitwise (in place too: a rank copies its result out
// before it writes the next input). Returns the wrong elements over all ops and ranks, reported
// unless `report` is false; errors recorded by the protocol are rethrown (CaseError).
inline std::size_t run_oracle_ops_back_to_back(HostFabric& fabric, Variant& v, const RankBuffers& in,
                                               const RankBuffers& out, DType dtype, std::size_t elems, int world,
                                               int ops, std::uint64_t seed_base, const std::string& what,
                                               bool report = true) {
  const std::size_t bytes = elems * dtype_size(dtype);
  const std::size_t runs = static_cast<std::size_t>(ops) * static_cast<std::size_t>(world);
  std::vector<std::vector<std::uint8_t>> got(runs, std::vector<std::uint8_t>(bytes));
  fabric.run([&](int rank, Stream st) {
    std::vector<std::uint8_t> host(bytes);
    for (int op = 0; op < ops; ++op) {
      fill_oracle(host.data(), dtype, elems, seed_base + static_cast<std::uint64_t>(op), rank);
      fabric.upload(rank, in.local(rank), host.data(), bytes);
      v.launch(rank, st);
      fabric.download(rank, got[static_cast<std::size_t>(op * world + rank)].data(), out.local(rank), bytes);
    }
  });
  v.check_errors();
  std::size_t wrong = 0;
  for (int op = 0; op < ops; ++op) {
    const auto want = oracle_sum(dtype, elems, seed_base + static_cast<std::uint64_t>(op), world);
    for (int rank = 0; rank < world; ++rank) {
      const std::size_t w = count_wrong(got[static_cast<std::size_t>(op * world + rank)].data(), want.data(), dtype, elems);
      if (w != 0 && report) ADD_FAILURE() << what << ": op " << op << " rank " << rank << ": " << w << " wrong";
      wrong += w;
    }
  }
  return wrong;
}

// An allreduce case of `variant` on `fabric`, checked as supported, with its input and output
// buffers (the output is the input when in place), ready for Variant::prepare.
struct TwinCase {
  Case c;
  std::unique_ptr<RankBuffers> in, out;
  OpBuffers buffers;
};

inline TwinCase make_twin_case(HostFabric& fabric, const Variant& v, std::string variant, DType dtype, int world,
                               std::size_t elems, bool in_place) {
  TwinCase t;
  t.c.variant = std::move(variant);
  t.c.dtype = dtype;
  t.c.world = world;
  t.c.bytes = elems * dtype_size(dtype);
  t.c.in_place = in_place;
  const Support s = v.supports(t.c, fabric);
  EXPECT_TRUE(s.ok) << s.reason;
  t.in = fabric.alloc(t.c.bytes, Placement::local);
  if (!in_place) t.out = fabric.alloc(t.c.bytes, Placement::local);
  t.buffers.in = t.in.get();
  t.buffers.out = in_place ? t.in.get() : t.out.get();
  return t;
}

struct TwinRun {
  SymmAlgo algo = SymmAlgo::oneshot_pull;
  DType dtype = DType::bf16;
  int world = 2;
  std::size_t elems = 8;
  int ops = 1;
  bool in_place = false;
  int blocks = 0;  // 0: the policy's choice
  SymmOptions opt{};
  int threads = 0;    // Tuning::host_threads: 0 sequential, T block-faithful with T threads per block
  TwinOptions twin{};  // block-faithful: the SM count the launch policy sees
  bool back_to_back = false;  // ops in one fabric.run (run_oracle_ops_back_to_back)
};

inline std::string describe(const TwinRun& r) {
  return std::string(symm_algo_name(r.algo)) + "/" + std::string(dtype_name(r.dtype)) +
         "/world " + std::to_string(r.world) + "/elems " + std::to_string(r.elems) + "/ops " +
         std::to_string(r.ops) + (r.in_place ? "/in-place" : "") + "/blocks " +
         std::to_string(r.blocks) + "/start " + std::to_string(r.opt.start_epoch) + "/threads " +
         std::to_string(r.threads);
}

// r's case, buffers and tuning, with `v` (a twin of r.algo, any memory policy) prepared for them.
inline TwinCase prepare_twin_run(HostFabric& fabric, Variant& v, const TwinRun& r) {
  TwinCase tc = make_twin_case(fabric, v, std::string(symm_algo_name(r.algo)), r.dtype, r.world, r.elems, r.in_place);
  Tuning t;
  t.blocks = r.blocks;
  t.host_threads = r.threads;
  v.prepare(tc.c, fabric, tc.buffers, t);
  return tc;
}

// Runs r.ops ops of `v` on `fabric` (world must match), each with fresh oracle inputs, and checks
// every rank's output bitwise after each op. Returns the number of wrong elements over
// everything; `report` = false: the caller expects failures and only wants the count.
inline std::size_t run_twin_variant(HostFabric& fabric, Variant& v, const TwinRun& r, bool report = true) {
  const TwinCase tc = prepare_twin_run(fabric, v, r);
  const auto run = r.back_to_back ? run_oracle_ops_back_to_back : run_oracle_ops;
  return run(fabric, v, *tc.buffers.in, *tc.buffers.out, r.dtype, r.elems, r.world, r.ops, 1000u, describe(r), report);
}

// run_twin_variant with the production twin (HostMem).
inline std::size_t run_twin_case(HostFabric& fabric, const TwinRun& r) {
  auto v = make_symm_twin(r.algo, r.opt, r.twin);
  return run_twin_variant(fabric, *v, r);
}

}  // namespace arbench::testing
