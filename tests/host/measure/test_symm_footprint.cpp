// symmetric_bytes_per_rank (bench/measure/symm_footprint.hpp) against every variant's real
// allocations: each case runs, through the harness, on a fabric whose symmetric memory is an arena
// of exactly that many bytes (the fake driver's granularity is one slice, so nothing is rounded
// up to hide a short estimate). A case whose workload and scratch do not fit would grow the
// arena; every case must fit, give every slice back, and be correct: so the sizing covers every
// variant's scratch layout (one-shot pull/push, two-shot, ring, the fused family, reference) and
// the slices of one case never overlap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "arena_host_fabric.hpp"
#include "harness_test_util.hpp"
#include "kernels/fabric/peer/arena_slicer.hpp"
#include "measure/symm_footprint.hpp"

using namespace arbench;
using namespace arbench::testing;

namespace {

std::vector<Case> cases_for(const VariantEntry& e, int world) {
  std::vector<Case> out;
  if (e.family == Family::allreduce) {
    for (std::size_t bytes : {std::size_t(256), std::size_t(65536 + 6), std::size_t(262144)})
      out.push_back(Case{e.name, Family::allreduce, DType::bf16, world, bytes, 0, 0, false});
    out.push_back(Case{e.name, Family::allreduce, DType::fp32, world, 4000 * 4, 0, 0, true});
    out.push_back(Case{e.name, Family::allreduce, DType::fp16, world, 2 * 1001, 0, 0, false});
  } else {
    for (auto [tokens, hidden] : std::vector<std::pair<int, int>>{{1, 8192}, {5, 1001}, {16, 512}})
      out.push_back(Case{e.name, Family::allreduce_rmsnorm, DType::bf16, world,
                         std::size_t(tokens) * std::size_t(hidden) * 2, tokens, hidden, false});
  }
  return out;
}

// Arena host fabrics, made on first use; `made` points at the one made last (the case's).
FabricCache arena_fabrics(ArenaHostFabric*& made) {
  return FabricCache([&made](Backend, int w, const FabricEnv&) {
    auto f = std::make_unique<ArenaHostFabric>(w, 10.0, kSliceAlignment);
    made = f.get();
    return f;
  });
}

}  // namespace

TEST(SymmFootprint, EveryVariantsCaseFitsAnArenaOfItsFootprint) {
  const Registry reg = host_registry();
  RunConfig cfg = quick_config();
  cfg.samples = 2;
  cfg.pipelined_ops = 1;
  int ran = 0;
  for (const VariantEntry& e : reg.entries()) {
    if (!e.host) continue;
    for (int world : {1, 2, 3, 4}) {
      for (const Case& c : cases_for(e, world)) {
        ArenaHostFabric* fabric = nullptr;
        FabricCache fabrics = arena_fabrics(fabric);
        Harness h(cfg, Backend::host, reg, fabrics);
        if (!h.plan(c).ok) continue;
        auto v = reg.make(c.variant, Backend::host);
        const std::size_t need = symmetric_bytes_per_rank(c, *v, *fabric, cfg.tuning);
        fabric->reserve_symmetric(need);
        ASSERT_EQ(fabric->arena().chunks(), 1u) << c.name();
        ASSERT_EQ(fabric->arena().capacity(), need) << c.name();
        const CaseResult r = h.run(c);
        EXPECT_TRUE(r.ok) << c.name() << ": " << r.reason;
        EXPECT_EQ(r.wrong_elements, 0u) << c.name();
        EXPECT_EQ(fabric->arena().chunks(), 1u)
            << c.name() << " did not fit an arena of its footprint (" << need << " bytes per rank): it grew";
        EXPECT_EQ(fabric->arena().live_buffers(), 0u) << c.name() << ": a slice was not given back";
        ++ran;
      }
    }
  }
  EXPECT_GT(ran, 100) << "too few cases ran to cover every variant";
}

// The check above can fail: a case run on an arena one slice short of what its buffers really
// take (measured on a first run) grows the arena. And the estimate is an upper bound that is not
// wildly loose: within the slack and the variant's local state of the real need.
TEST(SymmFootprint, AnArenaOneSliceShortOfTheRealNeedGrows) {
  const Registry reg = host_registry();
  RunConfig cfg = quick_config();
  const Case c{"oneshot-push", Family::allreduce, DType::bf16, 4, 65536, 0, 0, false};
  std::size_t real = 0, estimate = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    ArenaHostFabric* fabric = nullptr;
    FabricCache fabrics = arena_fabrics(fabric);
    Harness h(cfg, Backend::host, reg, fabrics);
    ASSERT_TRUE(h.plan(c).ok);
    if (attempt == 0) {
      auto v = reg.make(c.variant, Backend::host);
      estimate = symmetric_bytes_per_rank(c, *v, *fabric, cfg.tuning);
      fabric->reserve_symmetric(estimate);
    } else {
      fabric->reserve_symmetric(real - kSliceAlignment);
    }
    const CaseResult r = h.run(c);
    EXPECT_TRUE(r.ok) << r.reason;  // correct either way: a short arena grows by a chunk
    if (attempt == 0) {
      real = fabric->arena().high_water();
      EXPECT_EQ(fabric->arena().chunks(), 1u);
    } else {
      EXPECT_EQ(fabric->arena().chunks(), 2u) << "one slice short of " << real << " bytes, yet it fit";
    }
  }
  EXPECT_GE(estimate, real);
  EXPECT_LE(estimate - real, (kFootprintSlackSlices + 4) * kSliceAlignment) << estimate << " vs " << real;
}
