// The block-faithful twins (kernels/twin_grid.hpp): every custom kernel with each block run as T
// CPU threads and all blocks of all ranks at once, against the oracle (bitwise; the fused
// family within its documented ULP bound, every rank bitwise equal). Under ThreadSanitizer
// (ctest label tsan) this is the twin matrix, one ctest entry per kernel, world size and
// threads per block (ring_world8_T32...), so that ctest -j spreads it.
//
// What the matrix covers, per kernel: world sizes {2, 3, 4, 8} ({4, 6, 8} for the island kernels,
// whose islands alternate between equal and unequal, and whose crossing alternates between P2P
// and host memory) x threads per block T in {1, 3, 32} (those the kernel's launch policy allows:
// the norm kernels need T | kNormLanes, so {1, 32}), each cell one ctest entry; within a cell, six
// rows that cover every pair of values of blocks {1, 3}, two sizes, every dtype and the epoch's
// start (near the 2^32 wrap or not): see kRows. Each case runs 3 ops back to back (a fast rank
// may start an op while a slow one still reads the previous: slots and epochs reused). Sizes have
// tails (twin_points.hpp): not a multiple of the pack, of the world size, nor of T (short: fewer
// packs than threads; long: several packs per thread). In-place alternates row by row, so that
// both settings meet every value of every other factor. The fused family has no in-place form.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/mem_host.hpp"
#include "tests/host/kernels/twin_points.hpp"

namespace arbench::testing {
namespace {

// A wait bound far above any honest wait, also with 8 ranks x 3 blocks x 32 threads under TSan
// on 2 loaded cores: a timeout here is a protocol fault, not a slow machine.
constexpr double kTimeoutS = 60.0;

// One cell: a kernel, a world size and a thread count per block; `t` is the thread count's
// index among those the kernel allows (it takes part in the pairwise alternations below).
struct MatrixCell {
  TwinKernel kernel;
  int world;
  int threads;
  int t;
};

class TwinFaithful : public ::testing::TestWithParam<MatrixCell> {};

// The cases of a cell: blocks B in {1, 3}, the short or long size S, the dtype D and the epoch's
// start W (near the 2^32 wrap or not), as a covering array of strength 2 (6 rows): every pair of
// values of any two of B, S, D, W meets in some row, and each dtype's two rows are complements.
// The full product (24 rows with W alternating) ran bf16 and fp16, which take the same path
// through every protocol (2-byte elements, the same packs and slots, only the conversion
// differs), each through every combination of the other factors: most of the matrix's time,
// spent on steps the pairwise rows already take (2026-12-05, docs/developing.md "Test time").
struct MatrixRow {
  int d, b, s, w;
};
constexpr MatrixRow kRows[] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 0}, {2, 1, 0, 1}, {2, 0, 1, 0}};

TEST_P(TwinFaithful, Matrix) {
  const auto [kernel, world, threads, t] = GetParam();
  HostFabric fabric(world, kTimeoutS);
  for (int r = 0; r < 6; ++r) {
    const auto [d, b, s, w] = kRows[r];
    TwinPoint p;
    p.world = world;
    p.threads = threads;
    p.blocks = b == 0 ? 1 : 3;
    p.long_size = s == 1;
    p.dtype = kAllDTypes[d];
    p.near_wrap = w == 1;
    // In-place alternates row by row (and with the world and T), so within a cell it meets both
    // values of every other factor.
    p.in_place = !is_norm_kernel(kernel) && (world + t + r) % 2 == 1;
    // Island kernels: equal and unequal islands, P2P and host memory across, pairwise too.
    p.island_first = (world + b + s) % 2 == 0 ? world / 2 : world / 2 - 1;
    p.cross_host = (t + b + d) % 2 == 1;
    SCOPED_TRACE(describe(kernel, p));
    EXPECT_EQ(run_twin_point<HostMem>(kernel, fabric, p), 0u);
    if (HasFailure()) return;
  }
}

std::vector<MatrixCell> cells() {
  std::vector<MatrixCell> out;
  for (TwinKernel k : kTwinKernels) {
    // Not oneshot-fp8 and twoshot-fp8. Half the rows run in place, which they do not offer; the
    // bitwise oracle holds for them only up to 4 ranks (twoshot-fp8 quantizes the sums of 8
    // ranks' [-4, 4] again, and a sum such as 17 needs 5 significant bits: fp8_run); and their
    // 24 cells (the matrix has about 100, each a TSan ctest entry) would repeat steps the matrix
    // already takes: the protocols are oneshot-pull's and twoshot's (Fp8Sync: the same
    // synchronisation operations). Their payload runs block-faithfully under TSan in
    // test_twin_fp8.cpp, their protocol under every planted fault in the mutation score, and
    // a missing rank below.
    if (is_fp8_kernel(k)) continue;
    // the world sizes of islands: 4, 6 and 8 ranks in two islands
    const std::vector<int> worlds = is_island_kernel(k) ? std::vector<int>{4, 6, 8} : std::vector<int>{2, 3, 4, 8};
    for (int world : worlds) {
      int t = 0;
      for (int threads : {1, 3, 32})
        if (threads_allowed(k, threads)) out.push_back({k, world, threads, t++});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Kernels, TwinFaithful, ::testing::ValuesIn(cells()),
                         [](const ::testing::TestParamInfo<MatrixCell>& cell) {
                           std::string name = twin_kernel_name(cell.param.kernel);
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name + "_world" + std::to_string(cell.param.world) + "_T" +
                                  std::to_string(cell.param.threads);
                         });

// A rank that never launches: in block-faithful mode too (a thread whose wait expired must stop
// its whole block, through block_all), every waiting rank records the timeout and no rank
// writes any output.
TEST(TwinFaithfulMissingRank, NoRankWritesOutput) {
  HostFabric fabric(4, 0.3);
  for (TwinKernel k : kTwinKernels) {
    if (k == TwinKernel::add_rmsnorm) continue;  // its norm kernel runs after the failed all-reduce
    TwinPoint p;
    p.ops = 1;
    const MissingRankOutcome o = run_missing_rank<HostMem>(k, fabric, p, 1);
    EXPECT_TRUE(o.error_recorded) << describe(k, p);
    EXPECT_EQ(o.ranks_that_wrote, 0) << describe(k, p);
  }
}

// The norm's lane tree has a fixed shape, so any thread count gives the same bits: the
// block-faithful fused twins equal the sequential ones bitwise, on inputs whose every rounding
// matters (not the oracle's small integers).
TEST(TwinFaithful, FusedBitwiseEqualToSequential) {
  HostFabric fabric(3, kTimeoutS);
  for (TwinKernel k : {TwinKernel::add_rmsnorm, TwinKernel::fused_oneshot, TwinKernel::fused_twoshot})  // fused_island: TwinIsland
    for (DType t : kAllDTypes) {
      TwinPoint p;
      p.world = 3;
      p.dtype = t;
      p.ops = 1;
      std::vector<std::vector<std::uint8_t>> outputs;
      for (int threads : {0, 32}) {
        FusedRun r = fused_run(k, p);
        r.threads = threads;
        auto v = make_fused_twin(r.algo, r.opt, r.twin);
        auto work = prepare_fused_run(fabric, *v, r, 1e-6);
        fill_random_rmsnorm_inputs(fabric, *work, fused_case(r), 11);
        fabric.run([&](int rank, Stream st) { v->launch(rank, st); });
        v->check_errors();
        outputs.push_back(download_outputs(fabric, *work, fused_case(r)));
      }
      EXPECT_EQ(outputs[0], outputs[1]) << describe(k, p);
    }
}

}  // namespace
}  // namespace arbench::testing
