// The measurement against known answers, end to end on the host backend (CI): a variant whose
// op is a sleep of a known, different length on each rank is registered here (never in the
// production registry) and run through run_sweep into a result JSON; tests/app/known_cost.hpp
// lists what the JSON must then say. The GPU version (a
// spin kernel per rank) is tests/gpu/test_known_cost_gpu.cpp.
//
// Margins, for a loaded 2-core machine (seen here: load average 27, five engineers building):
// sleeps never end early, so every sample >= the slowest rank's 40 ms holds however busy the
// machine is, and the minimum, rank 0's time, the last rank's or the mean (23 ms) would fall
// below it. Wake-ups can be late by tens of ms under such load, so the upper bounds are 4x the
// slowest rank: far from the bugs they catch (ms taken for us: 1000x; the 8-op pipelined time
// not divided by its 8 ops: 8x). The variant only sleeps (no data; the check is off), so nothing
// but the sleeps and the fabric's own start line is timed.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tests/app/known_cost.hpp"
#include "tests/app/sweep_json.hpp"

namespace arbench::testing {
namespace {

// Rank 1, the slowest, is neither the first nor the last rank.
const KnownCost kCost{{10'000, 40'000, 20'000}, 4.0};
constexpr int kSamples = 7;
constexpr int kPipelinedOps = 8;

class SleepsKnownTime final : public Variant {
 public:
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case&, Fabric&, const OpBuffers&, const Tuning&) override {}
  void launch(int rank, Stream) override {
    std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(kCost.rank_us.at(std::size_t(rank))));
  }
};

TEST(KnownCost, HostSamplesPercentilesBandwidthAndPipelinedTimeAreExact) {
  RunConfig cfg = allreduce_sweep("host", 3, {"known-cost"});
  cfg.min_bytes = cfg.max_bytes = 3 * 1024;
  cfg.warmup = 1;
  cfg.samples = kSamples;
  cfg.pipelined_ops = kPipelinedOps;
  cfg.check = false;  // the variant computes nothing
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(sweep_to_json(
      cfg, "known-cost-host", doc,
      known_cost_registry([] { return std::make_unique<SleepsKnownTime>(); }, false, "rank r sleeps a known time")));
  ASSERT_EQ(doc["arbench"]["cases"].size(), 1u);
  expect_known_answers(doc, kCost, kSamples, true);
}

}  // namespace
}  // namespace arbench::testing
