// The host fabric, the harness and the reference all-reduce, end to end on CPU threads.
// Also built with ThreadSanitizer (label tsan).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "arbench/core/errors.hpp"
#include "results/stats/stats.hpp"
#include "measure/harness.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/reference/reference_twin.hpp"
#include "tests/host/kernels/planted_sum.hpp"
#include "tests/host/measure/harness_test_util.hpp"

using namespace arbench;

TEST(HostFabric, RunsEveryRankOnce) {
  HostFabric f(4);
  std::atomic<int> mask{0};
  f.run([&](int rank, Stream s) {
    EXPECT_EQ(s, nullptr);
    mask.fetch_or(1 << rank);
  });
  EXPECT_EQ(mask.load(), 0xf);
}

TEST(HostFabric, TimesSamplesAsMaxOverRanks) {
  // Rank r sleeps a known, different time; the slowest (rank 1) is neither first nor last. Sleeps
  // never end early, so every sample >= 40 ms holds on any machine, however loaded; a minimum,
  // rank 0's time, the last rank's or the mean (18 ms) would fall below it. The upper bounds are
  // relative to what the same sleeps take on plain threads right before and after (a machine at
  // load 60 wakes 40 ms sleepers 100+ ms late: a fixed 160 ms bound failed there): 4x the
  // slowest of those still catches a unit slip or a pipelined total not divided by its 8 ops
  // (8x the op, at whatever load). TSan builds this file too.
  constexpr double kSleepMs[] = {3, 40, 12};
  constexpr double kSlowest = 40e-3, kMaxRatio = 4;
  HostFabric f(3);
  const RankFn op = [&](int rank, Stream) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(kSleepMs[rank]));
  };
  double plain = 0;  // the slowest of 3 runs of the three sleeps on plain threads, in seconds
  auto measure_plain = [&] {
    for (int i = 0; i < 3; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<std::thread> threads;
      for (int r = 0; r < 3; ++r) threads.emplace_back([&, r] { op(r, nullptr); });
      for (std::thread& t : threads) t.join();
      plain = std::max(plain, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  };
  measure_plain();
  const IsolatedTimes t = f.time_isolated(op, 5);
  const double per_op = f.time_pipelined(op, 8, 2);
  measure_plain();
  ASSERT_EQ(t.samples.size(), 5u);
  for (double s : t.samples) EXPECT_GE(s, kSlowest);
  EXPECT_LT(median_of(t.samples), plain * kMaxRatio) << "plain threads took up to " << plain << " s";
  ASSERT_EQ(t.start_skew.size(), 5u);  // the start line releases every rank: their spread
  for (double s : t.start_skew) EXPECT_GE(s, 0.0);
  EXPECT_EQ(t.discarded, 0);
  EXPECT_GE(per_op, kSlowest);
  EXPECT_LT(per_op, plain * kMaxRatio) << "plain threads took up to " << plain << " s";
}

TEST(HostFabric, RankErrorsReachTheCaller) {
  HostFabric f(4);
  EXPECT_THROW(f.run([](int rank, Stream) {
    if (rank == 2) throw CaseError("rank 2 failed");
  }),
               CaseError);
  // A failing rank must not leave its peers stuck at the start line of the next sample.
  EXPECT_THROW(f.time_isolated(
                   [](int rank, Stream) {
                     if (rank == 1) throw CaseError("boom");
                   },
                   5),
               CaseError);
  f.run([](int, Stream) {});  // still usable
}

TEST(HostFabric, SymmetricBuffersAreSharedLocalOnesAreNot) {
  HostFabric f(2);
  auto sym = f.alloc(64, Placement::symmetric);
  EXPECT_EQ(sym->peer(0, 1), sym->local(1));
  PeerTable t = sym->table(1, 2);
  EXPECT_EQ(t.ptr[0], sym->local(0));
  EXPECT_EQ(t.rank, 1);
  auto loc = f.alloc(64, Placement::local);
  EXPECT_THROW(loc->peer(0, 1), CaseError);
  EXPECT_EQ(static_cast<unsigned char*>(loc->local(0))[63], 0);
}

namespace {

using arbench::testing::host_registry;
using arbench::testing::quick_config;

CaseResult run_case(const Registry& reg, const Case& c, const RunConfig& cfg) {
  FabricCache fabrics([&](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world, cfg.timeout_s); });
  Harness h(cfg, Backend::host, reg, fabrics);
  EXPECT_TRUE(h.plan(c).ok);
  return h.run(c);
}

}  // namespace

TEST(ReferenceAllReduce, ExactForOneToEightRanksWithTails) {
  const Registry reg = host_registry();
  const RunConfig cfg = quick_config();
  for (int world = 1; world <= 8; ++world)
    for (DType t : kAllDTypes)
      for (std::size_t elems : {std::size_t(1), std::size_t(7), std::size_t(8 * 8 + 3), std::size_t(4099)}) {
        Case c{"reference", Family::allreduce, t, world, elems * dtype_size(t), 0, 0, false};
        CaseResult r = run_case(reg, c, cfg);
        EXPECT_TRUE(r.ok) << c.name() << ": " << r.reason;
        EXPECT_TRUE(r.checked);
        EXPECT_EQ(r.wrong_elements, 0u) << c.name();
        EXPECT_EQ(r.samples_us.size(), 3u);
        EXPECT_GE(r.pipelined_us, 0.0);
      }
}

TEST(ReferenceAllReduce, InPlace) {
  const Registry reg = host_registry();
  Case c{"reference", Family::allreduce, DType::bf16, 4, 4096 * 2 + 6, 0, 0, true};
  CaseResult r = run_case(reg, c, quick_config());
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_TRUE(r.checked);
  EXPECT_EQ(r.wrong_elements, 0u);
  EXPECT_EQ(r.samples_us.size(), 3u);
}

namespace {

// A deliberately wrong all-reduce: it forgets the last peer. The harness must catch it.
std::vector<int> all_but_last_rank(int world) {
  std::vector<int> r;
  for (int p = 0; p + 1 < world; ++p) r.push_back(p);
  return r;
}

}  // namespace

TEST(Harness, WrongResultFailsTheCaseWithAReason) {
  Registry reg;
  VariantEntry e;
  e.name = "broken";
  e.host = [] { return std::make_unique<arbench::testing::PlantedSum>(all_but_last_rank); };
  reg.add(e);
  Case c{"broken", Family::allreduce, DType::fp32, 4, 1024, 0, 0, false};
  CaseResult r = run_case(reg, c, quick_config());
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.wrong_elements, 0u);
  EXPECT_NE(r.reason.find("elements wrong after warm-up"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("rank 0 element"), std::string::npos) << r.reason;
}
