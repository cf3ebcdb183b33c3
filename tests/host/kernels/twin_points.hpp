// One point of the twin matrix, for any custom kernel and any host memory policy: the
// block-faithful matrix (test_twin_faithful.cpp) runs it with HostMem, the mutation score
// (tests/mutation/) with the mutant policies. Two checks: ops against the oracle
// (run_twin_point), and a rank that never launches (run_missing_rank).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/ring/ring_policy.hpp"
#include "arbench/core/errors.hpp"
#include "kernels/fp8/fp8_twins.hpp"
#include "tests/host/kernels/fused_twin_harness.hpp"
#include "tests/host/kernels/island_twin_harness.hpp"
#include "tests/host/kernels/ring_twin_harness.hpp"
#include "tests/host/kernels/twin_kernel.hpp"
#include "tests/host/kernels/twin_harness.hpp"

namespace arbench::testing {

// Whether the kernel's launch policy allows `threads` per block (the norm needs a divisor of
// its lanes).
inline bool threads_allowed(TwinKernel k, int threads) {
  if (is_norm_kernel(k)) return algo::FusedLaunchPolicy::threads_ok(threads);
  if (k == TwinKernel::ring) return algo::RingPolicy::threads_ok(threads);
  return algo::SymmLaunchPolicy::threads_ok(threads);
}

struct TwinPoint {
  int world = 4;
  int threads = 4;  // per block (block-faithful)
  int blocks = 2;
  bool long_size = true;  // short: fewer packs (rows) than threads; long: several per thread
  DType dtype = DType::bf16;
  bool in_place = false;  // allreduce kernels only
  bool near_wrap = false;  // epochs start just before 2^32
  int ops = 3;
  // Island kernels: ranks 0..island_first-1 form the first island, the rest the second (0:
  // halves); cross_host: the islands lack P2P, so the crossing goes through host memory.
  int island_first = 0;
  bool cross_host = false;
};

inline std::string describe(TwinKernel k, const TwinPoint& p) {
  return std::string(twin_kernel_name(k)) + " world " + std::to_string(p.world) + " T " + std::to_string(p.threads) +
         " blocks " + std::to_string(p.blocks) + (p.long_size ? " long " : " short ") +
         std::string(dtype_name(p.dtype)) + (p.in_place ? " in-place" : "") + (p.near_wrap ? " near-wrap" : "") +
         (is_island_kernel(k) ? " islands " + algo::islands_text(two_islands(p.world, p.island_first)) +
                                    (p.cross_host ? " host-memory" : " p2p")
                              : std::string());
}

inline constexpr std::uint32_t kNearWrap = 0xfffffffeu;  // 3 ops cross 2^32

// The SM count the twins' launch policies see: the point's blocks, so every kernel runs that
// many on any machine (the norm-only kernel: one block per row, up to the SM count).
inline TwinOptions twin_options(const TwinPoint& p) { return TwinOptions{p.blocks}; }

// Element count with tails: the last pack is partial, and the pack count is a multiple of
// neither the world size nor T.
inline std::size_t allreduce_elems(const TwinPoint& p) {
  const std::size_t per = 16 / dtype_size(p.dtype);
  const std::size_t packs = p.long_size ? static_cast<std::size_t>(2 * p.threads * p.blocks * p.world + 5)
                                        : static_cast<std::size_t>(p.world + 1);
  return packs * per - (p.long_size ? 3 : 1);
}

// What every kernel's run (TwinRun, RingRun, FusedRun, IslandRun) takes from the point alike:
// dtype, world, ops, threads per block, the SM count, and the ops back to back.
template <class Run>
Run point_run(const TwinPoint& p) {
  Run r;
  r.dtype = p.dtype;
  r.world = p.world;
  r.ops = p.ops;
  r.threads = p.threads;
  r.twin = twin_options(p);
  r.back_to_back = true;
  return r;
}

inline TwinRun symm_run(TwinKernel k, const TwinPoint& p) {
  TwinRun r = point_run<TwinRun>(p);
  r.algo = k == TwinKernel::oneshot_pull   ? SymmAlgo::oneshot_pull
           : k == TwinKernel::oneshot_push ? SymmAlgo::oneshot_push
                                           : SymmAlgo::twoshot;
  r.elems = allreduce_elems(p);
  r.in_place = p.in_place;
  r.blocks = p.blocks;
  r.opt.start_epoch = p.near_wrap ? kNearWrap : algo::kEpochStart;
  return r;
}

// oneshot-fp8 and twoshot-fp8: the run of the exact kernel whose protocol they run, with one FP8
// unit (kFp8UnitElems elements) for each of its packs, so the protocol deals the same number of
// work items to ranks, blocks and threads (the last unit partial, as the last pack is); out of
// place (the FP8 variants run out of place only). The oracle's inputs (integers in [-4, 4]) and
// their sums over up to 4 ranks (integers in [-16, 16], at most 4 significant bits) are exact in
// e4m3 at any block scale, so the bitwise check holds through both quantizations of twoshot-fp8;
// at 8 ranks it would not (a sum such as 17 needs 5 bits): test_twin_fp8.cpp, OracleInputs.
inline Fp8Algo fp8_algo(TwinKernel k) { return k == TwinKernel::oneshot_fp8 ? Fp8Algo::oneshot : Fp8Algo::twoshot; }
inline TwinRun fp8_run(TwinKernel k, const TwinPoint& p) {
  TwinRun r = symm_run(protocol_kernel(k), p);
  r.elems = allreduce_elems(p) * (algo::kFp8UnitElems / (16 / dtype_size(p.dtype)));
  r.in_place = false;
  return r;
}

// The long size's ring chunk: 3 packs, or more where that would make more than about 3 rounds per
// op. Each round is 2(world-1) transfers through 4 slots, so slots and credits wrap within it and
// across its end, and near-wrap crosses 2^32 in the first; 3 rounds per op is what the mutation
// score's point runs (4 ranks, 4 threads, 2 channels: 69 packs, chunk 3), where every ring fault
// is killed. 3-pack chunks gave T = 32 about 22 rounds per op (2 T packs per rank and channel),
// the same steps repeated: most of the block-faithful matrix's ring time.
inline std::size_t ring_long_chunk_packs(const TwinPoint& p) {
  const auto per_channel = static_cast<std::size_t>(p.world * p.blocks);
  const std::size_t packs = (allreduce_elems(p) * dtype_size(p.dtype) + 15) / 16;
  const std::size_t segment = (packs + per_channel - 1) / per_channel;
  return std::max<std::size_t>(3, (segment + 2) / 3);
}

inline RingRun ring_run(const TwinPoint& p) {
  RingRun r = point_run<RingRun>(p);
  r.elems = allreduce_elems(p);
  r.channels = p.blocks;
  r.chunk = p.long_size ? 16 * ring_long_chunk_packs(p) : 0;  // long: several rounds per op, so slots and credits wrap
  r.in_place = p.in_place;
  r.opt.start_seq = p.near_wrap ? kNearWrap : algo::kEpochStart;
  return r;
}

inline FusedRun fused_run(TwinKernel k, const TwinPoint& p) {
  FusedRun r = point_run<FusedRun>(p);
  r.algo = k == TwinKernel::add_rmsnorm     ? FusedAlgo::unfused_oneshot
           : k == TwinKernel::fused_oneshot ? FusedAlgo::fused_oneshot
                                            : FusedAlgo::fused_twoshot;
  // Short: one row of 9 elements (fewer packs than threads, a partial pack). Long: rows a
  // multiple of neither the world nor the blocks, of 1011 elements (127 or 253 packs: a
  // multiple of neither 3 nor 32, the last one partial).
  r.tokens = p.long_size ? p.world * p.blocks + 1 : 1;
  r.hidden = p.long_size ? 1011 : 9;
  r.blocks = p.blocks;
  r.opt.start_epoch = p.near_wrap ? kNearWrap : 0u;
  return r;
}

inline IslandRun island_run(TwinKernel k, const TwinPoint& p) {
  IslandRun r = point_run<IslandRun>(p);
  r.algo = k == TwinKernel::island_oneshot   ? IslandAlgo::oneshot
           : k == TwinKernel::island_twoshot ? IslandAlgo::twoshot
           : k == TwinKernel::fused_island   ? IslandAlgo::fused_oneshot
                                             : IslandAlgo::fused_twoshot;
  r.islands = two_islands(p.world, p.island_first);
  r.cross_p2p = !p.cross_host;
  r.elems = allreduce_elems(p);
  r.tokens = p.long_size ? p.world * p.blocks + 1 : 1;  // as fused_run
  r.hidden = p.long_size ? 1011 : 9;
  r.in_place = !is_norm_kernel(k) && p.in_place;
  r.blocks = p.blocks;
  r.opt.start_epoch = p.near_wrap ? kNearWrap : algo::kEpochStart;
  return r;
}

// p.ops ops of kernel k with memory policy Mem, back to back (a fast rank may be an op ahead of a
// slow one), checked against the oracle (allreduce: every op, bitwise; fused: the last op, within
// the ULP bound, all ranks bitwise equal). Returns the wrong elements;
// a recorded protocol error (timeout) is thrown as CaseError. `report`: add a test failure.
template <class Mem>
std::size_t run_twin_point(TwinKernel k, HostFabric& fabric, const TwinPoint& p, bool report = true) {
  switch (k) {
    case TwinKernel::oneshot_pull:
    case TwinKernel::oneshot_push:
    case TwinKernel::twoshot: {
      const TwinRun r = symm_run(k, p);
      auto v = make_twin_with<Mem>(r.algo, r.opt, r.twin);
      return run_twin_variant(fabric, *v, r, report);
    }
    case TwinKernel::oneshot_fp8:
    case TwinKernel::twoshot_fp8: {
      const TwinRun r = fp8_run(k, p);
      auto v = make_twin_with<Mem>(fp8_algo(k), r.opt, r.twin);
      return run_twin_variant(fabric, *v, r, report);
    }
    case TwinKernel::ring: {
      const RingRun r = ring_run(p);
      auto v = make_ring_twin_with<Mem>(r.opt, r.twin);
      return run_ring_variant(fabric, *v, r, report);
    }
    case TwinKernel::island_oneshot:
    case TwinKernel::island_twoshot:
    case TwinKernel::fused_island:
    case TwinKernel::fused_island_twoshot: {  // a fabric of its own: islands, with or without P2P between them
      const IslandRun r = island_run(k, p);
      auto f = island_fabric(r, fabric.timeout_s());
      auto v = make_island_twin_with<Mem>(r.algo, r.opt, r.twin);
      return run_island_variant(*f, *v, r, report);
    }
    default: {
      const FusedRun r = fused_run(k, p);
      auto v = make_fused_twin_with<Mem>(r.algo, r.opt, r.twin);
      return run_fused_variant(fabric, *v, r, 1e-6, report).wrong_elements;
    }
  }
}

// What one op with rank `missing` never launching did.
struct MissingRankOutcome {
  bool error_recorded = false;  // check_errors() threw (a bounded wait expired)
  int ranks_that_wrote = 0;     // ranks other than `missing` whose outputs changed
};

// Oracle inputs in every rank's input, and its output poisoned (NaN bytes), so a rank that writes
// anything shows.
inline void inputs_and_poisoned_outputs(HostFabric& fabric, const OpBuffers& b, DType dtype, std::size_t elems,
                                        int world) {
  const std::size_t bytes = elems * dtype_size(dtype);
  std::vector<std::uint8_t> host(bytes), poison(bytes, 0xff);
  for (int r = 0; r < world; ++r) {
    fill_oracle(host.data(), dtype, elems, 1, r);
    fabric.upload(r, b.in->local(r), host.data(), bytes);
    fabric.upload(r, b.out->local(r), poison.data(), bytes);
  }
}

// One op of kernel k with rank `missing` absent. A correct protocol stops every block whose
// wait expired, so no rank writes any output (the reduction needs every rank). Not for
// add_rmsnorm: unfused-oneshot runs its norm kernel after a failed all-reduce.
template <class Mem>
MissingRankOutcome run_missing_rank(TwinKernel k, HostFabric& base, const TwinPoint& p, int missing) {
  std::unique_ptr<Variant> v;
  std::vector<const RankBuffers*> outs;
  TwinCase tc;
  std::unique_ptr<Workload> work;
  std::unique_ptr<HostFabric> own;  // island kernels: a fabric with islands
  HostFabric& fabric = is_island_kernel(k) ? *(own = island_fabric(island_run(k, p), base.timeout_s())) : base;
  if (is_island_kernel(k)) {
    const IslandRun r = island_run(k, p);
    auto iv = make_island_twin_with<Mem>(r.algo, r.opt, r.twin);
    const Case c = island_case(r);
    const Tuning t = island_tuning(r);
    if (is_norm_kernel(k)) {
      work = make_rmsnorm_workload(c, fabric, iv->buffer_placement(), 7, 1e-6);
      iv->prepare(c, fabric, work->buffers(), t);
      work->fill(fabric);
      outs = {work->buffers().norm_out, work->buffers().residual_out};
    } else {
      tc.in = fabric.alloc(c.bytes, Placement::local);
      tc.out = fabric.alloc(c.bytes, Placement::local);
      tc.buffers.in = tc.in.get();
      tc.buffers.out = tc.out.get();
      iv->prepare(c, fabric, tc.buffers, t);
      inputs_and_poisoned_outputs(fabric, tc.buffers, p.dtype, r.elems, p.world);
      outs = {tc.buffers.out};
    }
    v = std::move(iv);
  } else if (!is_norm_kernel(k)) {
    std::size_t elems = allreduce_elems(p);
    if (k == TwinKernel::ring) {
      v = make_ring_twin_with<Mem>(ring_run(p).opt, twin_options(p));
      tc = prepare_ring_run(fabric, *v, ring_run(p));
    } else if (is_fp8_kernel(k)) {
      const TwinRun r = fp8_run(k, p);
      v = make_twin_with<Mem>(fp8_algo(k), r.opt, r.twin);
      tc = prepare_twin_run(fabric, *v, r);
      elems = r.elems;
    } else {
      const TwinRun r = symm_run(k, p);
      v = make_twin_with<Mem>(r.algo, r.opt, r.twin);
      tc = prepare_twin_run(fabric, *v, r);
    }
    inputs_and_poisoned_outputs(fabric, tc.buffers, p.dtype, elems, p.world);
    outs = {tc.buffers.out};
  } else {
    const FusedRun r = fused_run(k, p);
    v = make_fused_twin_with<Mem>(r.algo, r.opt, r.twin);
    work = prepare_fused_run(fabric, *v, r, 1e-6);
    outs = {work->buffers().norm_out, work->buffers().residual_out};
  }
  auto snapshot = [&] {
    std::vector<std::vector<unsigned char>> s;
    for (const RankBuffers* b : outs)
      for (int r = 0; r < p.world; ++r) {
        s.emplace_back(b->bytes());
        fabric.download(r, s.back().data(), b->local(r), b->bytes());
      }
    return s;
  };
  const auto before = snapshot();
  fabric.run([&](int rank, Stream st) {
    if (rank != missing) v->launch(rank, st);
  });
  MissingRankOutcome out;
  try {
    v->check_errors();
  } catch (const CaseError&) {
    out.error_recorded = true;
  }
  const auto after = snapshot();
  for (int r = 0; r < p.world; ++r) {
    bool wrote = false;
    for (std::size_t b = 0; b < outs.size(); ++b) {
      const std::size_t i = b * static_cast<std::size_t>(p.world) + static_cast<std::size_t>(r);
      wrote = wrote || before[i] != after[i];
    }
    if (r != missing && wrote) ++out.ranks_that_wrote;
  }
  return out;
}

}  // namespace arbench::testing
