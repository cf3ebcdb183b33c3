// oneshot-pull, oneshot-push and twoshot kernels on the single_gpu fabric (2, 4, 8 virtual ranks
// on one GPU): eager ops and CUDA-graph replays, bitwise against the oracle, plus a rank that never
// launches (the kernels must time out and report it, not hang). Skips without a device.
// Sizes stay <= 1 MB: scripts/device-check.sh gives all GPU tests 150 s, and the oracle is
// computed on the host.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/core/oracle.hpp"
#include "gpu_test_util.hpp"
#include "kernels/fabric/cuda/single_gpu_fabric.hpp"
#include "kernels/symm/symm_kernels.hpp"
#include "tests/host/thrown.hpp"

using namespace arbench;

namespace {

constexpr SymmAlgo kAlgos[] = {SymmAlgo::oneshot_pull, SymmAlgo::oneshot_push, SymmAlgo::twoshot};

struct GpuCase {
  SymmAlgo algo;
  DType dtype;
  std::size_t elems;
  bool in_place = false;
  SymmOptions opt{};
};

std::string describe(const GpuCase& g, int world) {
  return std::string(symm_algo_name(g.algo)) + "/" + std::string(dtype_name(g.dtype)) + "/world " +
         std::to_string(world) + "/elems " + std::to_string(g.elems) + (g.in_place ? "/in-place" : "") +
         "/start " + std::to_string(g.opt.start_epoch);
}

// Prepares the variant on `f`, then: `eager` ops with fresh inputs each, checked after each;
// then (out-of-place only) one CUDA graph of 6 ops replayed 3 times, checked after; then one more
// eager op on fresh inputs, outputs poisoned before each, so epochs advanced inside graphs are seen
// to carry on and an op that writes nothing cannot pass on an earlier op's answer.
void run_and_check(Fabric& f, const GpuCase& g, int eager) {
  const int world = f.world();
  Case c;
  c.variant = symm_algo_name(g.algo);
  c.dtype = g.dtype;
  c.world = world;
  c.bytes = g.elems * dtype_size(g.dtype);
  c.in_place = g.in_place;
  auto v = make_symm_gpu(g.algo, g.opt);
  const Support s = v->supports(c, f);
  ASSERT_TRUE(s.ok) << s.reason;
  auto in = f.alloc(c.bytes, Placement::symmetric);
  auto out = g.in_place ? nullptr : f.alloc(c.bytes, Placement::symmetric);
  OpBuffers b;
  b.in = in.get();
  b.out = g.in_place ? in.get() : out.get();
  v->prepare(c, f, b, Tuning{});
  std::vector<std::uint8_t> host(c.bytes);
  auto upload = [&](std::uint64_t seed) {
    for (int r = 0; r < world; ++r) {
      fill_oracle(host.data(), g.dtype, g.elems, seed, r);
      f.upload(r, in->local(r), host.data(), c.bytes);
    }
  };
  auto check = [&](std::uint64_t seed, const char* when) {
    v->check_errors();
    const auto want = oracle_sum(g.dtype, g.elems, seed, world);
    for (int r = 0; r < world; ++r) {
      f.download(r, host.data(), b.out->local(r), c.bytes);
      EXPECT_EQ(count_wrong(host.data(), want.data(), g.dtype, g.elems), 0u)
          << describe(g, world) << ": " << when << ", rank " << r;
    }
  };
  const RankFn op = [&](int rank, Stream st) { v->launch(rank, st); };
  for (int i = 0; i < eager; ++i) {
    upload(7 + i);
    f.run(op);
    check(7 + i, "eager");
  }
  if (g.in_place) return;  // replays would add the output to itself
  // Outputs poisoned (NaN bytes) before each checked group: an op that writes nothing must not
  // pass on what an earlier op left there.
  const std::vector<std::uint8_t> poison(c.bytes, 0xff);
  auto poison_outputs = [&] {
    for (int r = 0; r < world; ++r) f.upload(r, b.out->local(r), poison.data(), c.bytes);
  };
  upload(99);
  poison_outputs();
  f.time_pipelined(op, 6, 3);
  check(99, "after CUDA-graph replays");
  // The eager op after the graphs: fresh inputs and poisoned outputs, so an op that wrote nothing
  // (or returned the graphs' answer) fails, and epochs advanced inside the graphs must carry on.
  upload(100);
  poison_outputs();
  f.run(op);
  check(100, "eager after graphs");
}

TEST(SymmKernels, EveryVariantOnVirtualRanks) {
  ARB_REQUIRE_GPUS(1);
  for (int world : {2, 4, 8}) {
    SingleGpuFabric f(world, 0, 10.0);
    for (SymmAlgo a : kAlgos)
      for (DType t : kAllDTypes) {
        const std::size_t per = 16 / dtype_size(t);
        const std::size_t wp = per * static_cast<std::size_t>(world);
        for (std::size_t n : {per, std::size_t{1}, wp - 1, wp + 1, std::size_t{65537},
                              (std::size_t{1} << 20) / dtype_size(t) + 3}) {
          run_and_check(f, GpuCase{a, t, n}, 3);
          if (HasFatalFailure()) return;
        }
      }
  }
}

TEST(SymmKernels, InPlaceAndEpochWrapAround) {
  ARB_REQUIRE_GPUS(1);
  SingleGpuFabric f(4, 0, 10.0);
  for (SymmAlgo a : kAlgos) {
    run_and_check(f, GpuCase{a, DType::bf16, 4 * 8 * 1000 + 5, true}, 3);
    GpuCase wrap{a, DType::fp16, 100003};
    wrap.opt.start_epoch = 0xfffffffcu;  // crosses 2^32 inside the eager ops and the graphs
    run_and_check(f, wrap, 3);
  }
}

TEST(SymmKernels, MissingRankTimesOutWithANamedError) {
  ARB_REQUIRE_GPUS(1);
  constexpr double kBound = 0.5;
  for (SymmAlgo a : kAlgos) {
    SingleGpuFabric f(4, 0, kBound);
    Case c;
    c.dtype = DType::bf16;
    c.world = 4;
    c.bytes = 64 * 1024;
    auto in = f.alloc(c.bytes, Placement::symmetric);
    OpBuffers b;
    b.in = in.get();
    b.out = in.get();
    auto v = make_symm_gpu(a);
    v->prepare(c, f, b, Tuning{});
    const auto t0 = std::chrono::steady_clock::now();
    f.run([&](int rank, Stream st) {
      if (rank != 3) v->launch(rank, st);
    });
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // At least the bound (the kernels did wait), and far below a hang or a mis-scaled bound,
    // with slack for a busy host (the launch and the bounded stream sync are host-side).
    EXPECT_GE(took, kBound) << symm_algo_name(a) << ": gave up before the bound";
    EXPECT_LT(took, kBound * 2 + 10.0) << symm_algo_name(a);
    SCOPED_TRACE(symm_algo_name(a));
    if (const auto e = test::thrown<CaseError>([&] { v->check_errors(); })) {  // none: yet rank 3 never launched
      EXPECT_NE(std::string(e->what()).find("rank 3 never arrived"), std::string::npos) << e->what();
    }
  }
}

}  // namespace
