// The island model (bench/islands/cost_model.hpp) against a host-backend measurement: 4 ranks in
// islands of 2 + 2 on a host fabric whose cross-island link is injected (HostFabricOptions::link:
// a latency and a slow shared bandwidth per direction), the twins built with the policy that pays
// it (CrossLinkMem). The model gets the injected link as its cross link and the host's own
// measured cost as its intra link. They must agree in shape: the traffic each variant puts on
// the cross link is exactly what the model counts, the measured winner is the model's wherever
// the model's margin is clear, the island variants win where the model says (and in its order),
// and the flat variant grows with size as the model says. Host timings: CPU timings, ratios only.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "arbench/core/oracle.hpp"
#include "islands/cost_model.hpp"
#include "kernels/fabric/host/cross_link_mem.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/island/island_twins.hpp"
#include "kernels/symm/symm_twins.hpp"

namespace arbench::testing {
namespace {

constexpr int kWorld = 4;
const std::vector<int> kIslands = {0, 0, 1, 1};
const std::vector<std::size_t> kSizes = {1024, 4096, 16384, 65536};
const std::vector<std::string> kVariants = {"oneshot-push", "island-oneshot", "island-twoshot"};
// The injected cross-island link: slow enough that it, not the host's scheduling, sets the time
// of the large messages (the host's own costs are measured and given to the model as well).
constexpr CrossLinkModel kLink{200e-6, 0.005};
constexpr int kSamples = 7;  // per measurement; the fastest is kept (Measured)

std::unique_ptr<Variant> make(const std::string& name) {
  if (name == "oneshot-push") return make_twin_with<CrossLinkMem>(SymmAlgo::oneshot_push);
  return make_island_twin_with<CrossLinkMem>(name == "island-oneshot" ? IslandAlgo::oneshot : IslandAlgo::twoshot);
}

// The fastest of the isolated samples, not their median: the model predicts an op's cost without
// interference, and load on a shared 2-core machine only ever adds time (a preempted rank). At
// load 15-25 the median of 5 samples was seen 10x off between two measurements of the same op
// (CI rehearsal: 1 KB oneshot-push 64 ms, then 22 ms); at load 20-27 beside a build even the
// fastest of 7 was 1.1 s once and 14 ms another time, so attempts keep the fastest of every
// sample taken so far (Fastest) rather than starting over.
struct Measured {
  double seconds = 0;           // fastest of the isolated samples
  std::uint64_t crossed_a_b = 0;  // bytes one op put on the island 0 -> island 1 link
};

Measured measure(HostFabric& f, const std::string& name, std::size_t bytes, int samples) {
  auto v = make(name);
  Case c;
  c.variant = name;
  c.dtype = DType::bf16;
  c.world = kWorld;
  c.bytes = bytes;
  Tuning t;
  t.islands[kWorld] = kIslands;
  EXPECT_TRUE(v->supports_with(c, f, t).ok);
  auto in = f.alloc(bytes, Placement::local);
  auto out = f.alloc(bytes, Placement::local);
  OpBuffers b;
  b.in = in.get();
  b.out = out.get();
  v->prepare(c, f, b, t);
  std::vector<std::uint8_t> host(bytes);
  for (int r = 0; r < kWorld; ++r) {
    fill_oracle(host.data(), c.dtype, c.elements(), 3, r);
    f.upload(r, in->local(r), host.data(), bytes);
  }
  Measured m;
  const std::uint64_t before = f.link() ? f.link()->bytes_crossed(0, 2) : 0;
  f.run(op_of(*v));  // one op: its traffic, and a warm-up
  m.crossed_a_b = f.link() ? f.link()->bytes_crossed(0, 2) - before : 0;
  v->check_errors();
  const auto want = oracle_sum(c.dtype, c.elements(), 3, kWorld);
  for (int r = 0; r < kWorld; ++r) {
    f.download(r, host.data(), out->local(r), bytes);
    EXPECT_EQ(count_wrong(host.data(), want.data(), c.dtype, c.elements()), 0u) << name << " rank " << r;
  }
  const std::vector<double> s = f.time_isolated(op_of(*v), samples).samples;
  m.seconds = *std::min_element(s.begin(), s.end());
  return m;
}

// The fastest time of each (fabric, variant, size) over every attempt so far: time added by load
// is not kept from one attempt to the next.
class Fastest {
 public:
  double operator()(const std::string& key, double seconds) {
    auto [it, added] = best_.try_emplace(key, seconds);
    if (!added) it->second = std::min(it->second, seconds);
    return it->second;
  }

 private:
  std::map<std::string, double> best_;
};

// One measurement of every variant at every size against the model (with the fastest times of
// the earlier attempts): the first disagreement in shape, or empty. The traffic on the cross link
// is exact and checked every time.
std::string shape_disagreement(Fastest& fastest) {
  // The host's own link, measured: oneshot-push inside one island-free fabric at two sizes
  // (one step: its latency at the small size, its bandwidth from the difference).
  HostFabric plain(kWorld, 60.0);
  const double t_small = fastest("plain small", measure(plain, "oneshot-push", kSizes.front(), kSamples).seconds);
  const double t_large = fastest("plain large", measure(plain, "oneshot-push", kSizes.back(), kSamples).seconds);
  islands::LinkCosts costs;
  costs.intra_latency_s = t_small;
  costs.intra_gbps = 2.0 * double(kSizes.back() - kSizes.front()) * (kWorld - 1) / std::max(t_large - t_small, 1e-6) / 1e9;
  costs.cross_latency_s = t_small + kLink.latency_s;
  costs.cross_gbps = kLink.gbps;

  HostFabricOptions o;
  o.island_of = kIslands;
  o.link = kLink;
  HostFabric f(kWorld, 60.0, o);
  std::map<std::string, std::vector<double>> model, measured;
  for (const auto& name : kVariants)
    for (std::size_t bytes : kSizes) {
      const auto p = islands::predict(name, kIslands, bytes, costs);
      if (!p.has_value()) return name + ": the model does not know it";
      const Measured m = measure(f, name, bytes, kSamples);
      model[name].push_back(p->seconds());
      measured[name].push_back(fastest(name + " " + std::to_string(bytes), m.seconds));
      std::printf("%-15s %7zu B  model %9.1f us  measured %9.1f us (fastest so far %9.1f us)  crossed %8llu B\n",
                  name.c_str(), bytes, p->seconds() * 1e6, m.seconds * 1e6, measured[name].back() * 1e6,
                  static_cast<unsigned long long>(m.crossed_a_b));
      // Traffic on the cross link, per direction: what the model counts (LL doubles the bytes;
      // flags add a few words).
      const double M = double(bytes);
      const double want = name == "oneshot-push" ? 2 * M * 4 : name == "island-oneshot" ? 2 * M * 2 : M;
      EXPECT_GE(double(m.crossed_a_b), want) << name;
      EXPECT_LE(double(m.crossed_a_b), want + 64 * 16) << name;
    }

  for (std::size_t i = 0; i < kSizes.size(); ++i) {
    std::vector<std::pair<double, std::string>> by_model, by_measure;
    for (const auto& name : kVariants) {
      by_model.push_back({model[name][i], name});
      by_measure.push_back({measured[name][i], name});
    }
    std::sort(by_model.begin(), by_model.end());
    std::sort(by_measure.begin(), by_measure.end());
    // Where the model's margin is clear, the host agrees on the winner.
    // Only where the model's margin is wide: a loaded 2-core machine reorders close calls.
    if (by_model[1].first > 3 * by_model[0].first && by_measure[0].second != by_model[0].second)
      return "size " + std::to_string(kSizes[i]) + ": the model's winner is " + by_model[0].second +
             ", the measurement's " + by_measure[0].second;
  }
  // The island variants win at the large sizes, in the model's order: island-twoshot moves 1/k of
  // the partial across, island-oneshot the whole of it, oneshot-push every rank's data to every
  // rank of the other island.
  const std::size_t last = kSizes.size() - 1;
  // (The model's intra link is the host's, measured above: a burst of load in that measurement
  // can skew it, so this too is a shape that one of the three measurements must show; the model
  // with fixed costs is checked exactly in IslandModel.StepsAndCrossovers.)
  if (!(model["oneshot-push"][last] > 1.5 * model["island-oneshot"][last]))
    return "largest size: the model (host-calibrated) puts island-oneshot within 1.5x of oneshot-push";
  if (!(model["island-oneshot"][last] > 1.5 * model["island-twoshot"][last]))
    return "largest size: the model (host-calibrated) puts island-twoshot within 1.5x of island-oneshot";
  if (!(measured["island-oneshot"][last] < measured["oneshot-push"][last]))
    return "largest size: island-oneshot measured no faster than oneshot-push";
  if (!(measured["island-twoshot"][last] < measured["oneshot-push"][last]))
    return "largest size: island-twoshot measured no faster than oneshot-push";
  // And the flat variant grows with the size as the model says (within 3x).
  const double model_growth = model["oneshot-push"][last] / model["oneshot-push"][0];
  const double measured_growth = measured["oneshot-push"][last] / measured["oneshot-push"][0];
  if (measured_growth < model_growth / 3)
    return "oneshot-push grew " + std::to_string(measured_growth) + "x, the model " + std::to_string(model_growth) + "x";
  return {};
}


// CPU timings on a shared 2-core machine: a burst of load can reorder one measurement, so the
// shape must hold after one of five, each keeping the fastest times of those before (a real
// disagreement is in the uncontended times, which load cannot take away). ctest runs this test
// alone (RUN_SERIAL, tests/serial_tests.cmake): its neighbours were most of its load.
TEST(IslandModelShape, ModelAndHostMeasurementAgree) {
  constexpr int kAttempts = 5;
  Fastest fastest;
  std::string problem;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const auto start = std::chrono::steady_clock::now();
    problem = shape_disagreement(fastest);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf("attempt %d (%.1f s): %s\n", attempt + 1, took.count(), problem.empty() ? "agrees" : problem.c_str());
    if (problem.empty()) break;
  }
  EXPECT_EQ(problem, "") << "the host measurement disagrees with the model after " << kAttempts << " measurements";
}

// The model itself: island sizes and variants it knows, and the crossovers it must show.
TEST(IslandModel, StepsAndCrossovers) {
  islands::LinkCosts c{1e-6, 50, 2e-6, 25};
  const std::vector<int> two_by_four = {0, 0, 0, 0, 1, 1, 1, 1};
  const auto push = islands::predict("oneshot-push", two_by_four, 1024, c);
  ASSERT_TRUE(push);
  ASSERT_EQ(push->steps.size(), 1u);
  // 1 KB: 2 KB of LL to 7 peers (14 KB on the GPU's link) vs 2 KB x 16 pairs (32 KB shared across).
  EXPECT_NEAR(push->seconds(), 2e-6 + 32768.0 / 25e9, 1e-12);
  const auto io = islands::predict("island-oneshot", two_by_four, 1024, c);
  ASSERT_TRUE(io);
  EXPECT_NEAR(io->seconds(), (1e-6 + 2.0 * 1024 * 3 / 50e9) + (2e-6 + std::max(2.0 * 1024 / 50e9, 2.0 * 1024 * 4 / 25e9)), 1e-12);
  EXPECT_EQ(islands::predict("island-twoshot", two_by_four, 1024, c)->steps.size(), 5u);
  // Tiny messages: the flat one-shot (one step); larger: island-oneshot, then island-twoshot.
  auto best = [&](std::size_t m) {
    std::string name;
    double t = 1e9;
    for (const auto& v : islands::modelled_variants())
      if (auto p = islands::predict(v, two_by_four, m, c); p && p->seconds() < t) t = p->seconds(), name = v;
    return name;
  };
  // (Whole partial vs 1/k: the crossover is 5 a_i / (4.5/b_i + 7/b_x), 13.5 KB here.)
  EXPECT_EQ(best(64), "oneshot-push");
  EXPECT_EQ(best(4 << 10), "island-oneshot");
  EXPECT_EQ(best(64 << 10), "island-twoshot");
  EXPECT_EQ(best(8 << 20), "island-twoshot");
  // One island: no island variant, and the flat ones use the intra link only.
  EXPECT_FALSE(islands::predict("island-oneshot", {0, 0, 0, 0}, 1024, c));
  EXPECT_NEAR(islands::predict("oneshot-push", {0, 0, 0, 0}, 1024, c)->seconds(), 1e-6 + 2.0 * 1024 * 3 / 50e9, 1e-12);
  // Not modelled, or a cost missing: nothing.
  EXPECT_FALSE(islands::predict("ring", two_by_four, 1024, c));
  EXPECT_FALSE(islands::predict("oneshot-push", two_by_four, 1024, islands::LinkCosts{1e-6, 50, 0, 0}));
}

}  // namespace
}  // namespace arbench::testing
