// The floor is a lower bound (bench/sol/floor.hpp): for every schedule of every variant, at every
// world size, on links that differ flow by flow and phase by phase, it never exceeds the time of
// an ideal execution of the same traffic (bench/sol/ideal_execution.hpp), written apart from it as
// events in time. A floor that priced every wait at the slowest hop of all the schedule's patterns,
// added a pipelined kernel's phases, or added a ring's waits to its busiest link's every step fails
// here on some schedule.
#include <gtest/gtest.h>

#include "arbench/traffic_schedules.hpp"
#include "gpu_only_variants.hpp"
#include "sol/floor.hpp"
#include "sol/ideal_execution.hpp"
#include "sol_fixture.hpp"

using namespace arbench;
using namespace arbench::sol;

namespace {

// Every variant with a traffic function, the host registry's and the GPU-only ones (NCCL, the peers).
Registry every_priced_variant() {
  Registry r;
  register_host_variants(r);
  sol_fixture::add_gpu_only_variants(r);
  return r;
}

std::vector<TrafficQuery> queries(const VariantEntry& e, int world, std::size_t bytes) {
  Case c;
  c.variant = e.name;
  c.world = world;
  c.bytes = bytes;
  c.tokens = int(bytes / (2 * 4096));
  c.hidden = 4096;
  std::vector<int> halves;
  for (int r = 0; r < world; ++r) halves.push_back(r < world / 2 ? 0 : 1);
  std::vector<TrafficQuery> out{TrafficQuery{c, "", halves, {}, {}}};
  for (const auto& config : e.configs) out.push_back(TrafficQuery{c, config, halves, {}, {}});
  return out;
}

}  // namespace

TEST(SolIdealExecution, TheFloorNeverExceedsAnIdealExecutionOfTheSameTraffic) {
  const Registry reg = every_priced_variant();
  int compared = 0, pipelined = 0;
  for (unsigned seed : {1u, 2u, 3u}) {
    const PatternRates rates = sol_fixture::every_pattern(seed);
    const FloorInputs in{&rates, {}, "fixture"};
    for (const VariantEntry& e : reg.entries()) {
      if (e.traffic == nullptr) continue;
      for (int world = 2; world <= 8; ++world)
        for (std::size_t bytes : {std::size_t(4096), std::size_t(1) << 20, std::size_t(64) << 20})
          for (const TrafficQuery& q : queries(e, world, bytes)) {
            const Traffic t = e.traffic(q);
            for (const TrafficSchedule& s : t.schedules) {
              if (!traffic_problem(s, query_of(t, q)).empty()) continue;  // test_traffic_check's concern
              std::string why;
              const auto floor = schedule_floor(s, world, in, std::nullopt, &why);
              ASSERT_TRUE(floor) << e.name << " " << s.name << ": " << why;
              const auto ideal = ideal_execution_us(s, world, in, 64, &why);
              ASSERT_TRUE(ideal) << e.name << " " << s.name << ": " << why;
              EXPECT_LE(floor->sol_us, *ideal * (1 + 1e-9))
                  << e.name << "[" << q.config << "] at " << world << " ranks, " << bytes << " bytes, seed " << seed
                  << ": " << s.name;
              ++compared;
              pipelined += s.pipelined;
            }
          }
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(pipelined, 0);  // FlashInfer's 8-rank unstaged kernel was among them
}

// The execution itself, by hand: a ring of 4 on links alike is its steps of transfer and hop; a
// pipelined schedule streams, so it costs its slowest phase and the fill, not the sum.
TEST(SolIdealExecution, ARingOfLinksAlikeIsItsStepsAndAPipelineIsItsSlowestPhasePlusTheFill) {
  PatternRates r = sol_fixture::every_pattern(7);
  for (auto& p : r.patterns) {
    for (auto& v : p.sizes[0].sm_gbps) v = 10.0;
    for (auto& h : p.idle_latency_us) h = 1.0;
  }
  const FloorInputs in{&r, {}, "fixture"};
  std::string why;
  const TrafficSchedule ring = ring_schedule("ring", {0, 1, 2, 3}, 10000, 6, 1);  // 1 us per step at 10 GB/s
  EXPECT_NEAR(*ideal_execution_us(ring, 4, in, 1, &why), 6 * (1.0 + 1.0), 1e-9);
  TrafficSchedule three{"three pushes", {}, 3, 1};
  for (int k = 0; k < 3; ++k) {
    three.phases.push_back(all_pairs_phase("push", TrafficDirection::push, 4, 100000));  // 10 us
    three.phases.back().waits = 1;
  }
  EXPECT_NEAR(*ideal_execution_us(three, 4, in, 1, &why), 3 * (10.0 + 1.0), 1e-9);
  three.pipelined = true;
  // 100 chunks of 0.1 us: the last leaves the first phase at 10 us and crosses the other two
  // phases behind it (0.1 us each), each landing a hop later: 10 + 2 x 0.1 + 3 x 1.
  EXPECT_NEAR(*ideal_execution_us(three, 4, in, 100, &why), 13.2, 1e-9);
  const auto f = schedule_floor(three, 4, in, std::nullopt, &why);
  ASSERT_TRUE(f) << why;
  EXPECT_NEAR(f->sol_us, 13.0, 1e-9);  // the slowest phase (10) and the fill (3 hops)
}
