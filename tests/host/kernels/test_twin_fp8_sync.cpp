// The FP8 payload leaves the protocols' synchronisation as it was (docs/variants.md, "One protocol,
// a new payload"): run with a memory policy that logs every flag release and epoch-counter store,
// oneshot-fp8 and oneshot-pull (twoshot-fp8 and twoshot) on the same grid make the same
// synchronisation operations, rank by rank, in the same order with the same values. Those are the
// operations the Relacy model (tests/model/) and the mutation score check on the exact variants;
// only the data accesses between them differ.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/mem_host.hpp"
#include "tests/host/kernels/fp8_twin_harness.hpp"

namespace arbench::testing {
namespace {

using SyncLog = std::vector<std::pair<char, std::uint32_t>>;
thread_local SyncLog* tl_log = nullptr;

struct LoggingMem : HostMem {
  static void store_release(std::uint32_t* p, std::uint32_t v) {
    if (tl_log) tl_log->emplace_back('R', v);
    HostMem::store_release(p, v);
  }
  static void counter_store(std::uint32_t* p, std::uint32_t v) {
    if (tl_log) tl_log->emplace_back('C', v);
    HostMem::counter_store(p, v);
  }
};

// Per rank, the sync log of `ops` ops of `v` (sequential twin: a rank's blocks run on its thread).
std::vector<SyncLog> sync_logs(Variant& v, HostFabric& fabric, const char* name, int world, int ops) {
  const std::size_t n = 128 * 8 + 40;
  TwinCase tc = make_twin_case(fabric, v, name, DType::bf16, world, n, false);
  Tuning t;
  t.blocks = 2;
  v.prepare(tc.c, fabric, tc.buffers, t);
  std::vector<SyncLog> logs(static_cast<std::size_t>(world));
  for (int op = 0; op < ops; ++op)
    fabric.run([&](int rank, Stream st) {
      tl_log = &logs[std::size_t(rank)];
      v.launch(rank, st);
      tl_log = nullptr;
    });
  v.check_errors();
  return logs;
}

TEST(Fp8Sync, TheFp8PayloadMakesTheExactProtocolsSynchronisationOperations) {
  for (auto [exact, fp8] : {std::pair{SymmAlgo::oneshot_pull, Fp8Algo::oneshot}, std::pair{SymmAlgo::twoshot, Fp8Algo::twoshot}}) {
    constexpr int kWorld = 3, kOps = 3;
    HostFabric fabric(kWorld);
    auto a = make_twin_with<LoggingMem>(exact);
    auto b = make_twin_with<LoggingMem>(fp8);
    const auto la = sync_logs(*a, fabric, symm_algo_name(exact), kWorld, kOps);
    const auto lb = sync_logs(*b, fabric, fp8_name(fp8), kWorld, kOps);
    EXPECT_EQ(a->blocks(), b->blocks());
    for (int r = 0; r < kWorld; ++r) {
      EXPECT_FALSE(la[std::size_t(r)].empty());
      EXPECT_EQ(la[std::size_t(r)], lb[std::size_t(r)]) << fp8_name(fp8) << " rank " << r;
    }
  }
}

}  // namespace
}  // namespace arbench::testing
