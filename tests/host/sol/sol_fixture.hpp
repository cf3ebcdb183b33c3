// Fixed pattern rates for the floor's tests: numbers chosen so every floor is computed by hand.
// The hops listed are idle (nothing running); each pair's hop under its pattern's load is twice it.
//   w8 all-pairs pull   every flow SM 6 GB/s at 64K, 10 at 1M; copy engines 8; hops 0->1 2.0 us, 7->6 3.0 us
//   w8 all-pairs push   every flow SM 7 (posted writes collapsed), copy engines 20; hop 0->1 4.0 us
//   w8 ring push        SM 40 GB/s, but 7->0 20; hops 0->1 1.5 us, 7->0 2.5 us
//   w2 all-pairs pull   both flows SM 50 GB/s; hop 0->1 1.0 us (the same GPUs, two at a time)
// Also a registry entry known by its traffic pattern alone (traffic_entry).
#pragma once

#include <string>

#include "arbench/variant.hpp"
#include "sol/pattern_rates.hpp"
#include "sol/probe_plan.hpp"

namespace sol_fixture {

using namespace arbench;
using namespace arbench::sol;

// A variant with a name and a traffic pattern (none when null) and nothing else: a plant for the
// traffic check, or a variant whose factories the floor's tests do not need.
inline VariantEntry traffic_entry(const std::string& name, TrafficFn traffic = nullptr) {
  VariantEntry e;
  e.name = name;
  e.traffic = traffic;
  return e;
}

inline MeasuredPattern measured(TrafficShape shape, TrafficDirection d, int world, const TrafficPhase& flows_of,
                                double sm, double ce, std::vector<std::pair<int, int>> hops, std::vector<double> hop_us) {
  MeasuredPattern p;
  p.key = pattern_key(shape, d, world);
  p.shape = shape;
  p.direction = d;
  p.world = world;
  for (const auto& f : flows_of.flows) p.flows.emplace_back(f.from, f.to);
  const std::size_t n = p.flows.size();
  p.sizes.push_back({1u << 20, std::vector<std::optional<double>>(n, sm), std::vector<std::optional<double>>(n, ce)});
  p.latency_pairs = std::move(hops);
  for (double h : hop_us) {
    p.idle_latency_us.emplace_back(h);  // the floor's hop
    p.latency_us.emplace_back(2 * h);   // under the pattern's load: twice, never priced while an idle one exists
  }
  return p;
}

inline PatternRates rates() {
  PatternRates r;
  r.timing = "gpu";
  r.method = "fixture";
  r.repetitions = 5;
  for (int i = 0; i < 8; ++i) r.positions.push_back("0000:0" + std::to_string(i) + ":00.0");
  auto pull8 = measured(TrafficShape::all_pairs, TrafficDirection::pull, 8,
                        all_pairs_phase("", TrafficDirection::pull, 8, 1), 10, 8, {{0, 1}, {7, 6}}, {2.0, 3.0});
  pull8.sizes.insert(pull8.sizes.begin(), {65536, std::vector<std::optional<double>>(56, 6.0), {}});
  r.patterns.push_back(pull8);
  r.patterns.push_back(measured(TrafficShape::all_pairs, TrafficDirection::push, 8,
                                all_pairs_phase("", TrafficDirection::push, 8, 1), 7, 20, {{0, 1}}, {4.0}));
  auto ring = measured(TrafficShape::ring, TrafficDirection::push, 8,
                       ring_phase("", TrafficDirection::push, {0, 1, 2, 3, 4, 5, 6, 7}, 1, 1), 40, 0, {{0, 1}, {7, 0}},
                       {1.5, 2.5});
  ring.sizes[0].ce_gbps.clear();
  ring.sizes[0].sm_gbps[7] = 20.0;  // 7 -> 0
  r.patterns.push_back(ring);
  r.patterns.push_back(measured(TrafficShape::all_pairs, TrafficDirection::pull, 2,
                                all_pairs_phase("", TrafficDirection::pull, 2, 1), 50, 0, {{0, 1}}, {1.0}));
  r.patterns.back().sizes[0].ce_gbps.clear();
  return r;
}

}  // namespace sol_fixture

namespace sol_fixture {

// Rates for every pattern the floor can ask for at 2..8 ranks (every shape, both directions),
// each flow its own rate in [10, 60) GB/s and each pattern its own idle hops in [0.3, 3.3) us on
// three pairs, drawn from `seed`: links that differ, phase by phase and flow by flow.
inline PatternRates every_pattern(unsigned seed) {
  PatternRates r;
  r.timing = "gpu";
  r.method = "fixture: every pattern, drawn rates";
  r.repetitions = 1;
  for (int i = 0; i < 8; ++i) r.positions.push_back("rank:" + std::to_string(i));
  unsigned state = seed * 2654435761u + 1;
  auto draw = [&](double lo, double hi) {
    state = state * 1664525u + 1013904223u;
    return lo + (hi - lo) * double(state >> 8) / double(1u << 24);
  };
  for (int world = 2; world <= 8; ++world)
    for (TrafficShape shape : {TrafficShape::all_pairs, TrafficShape::ring, TrafficShape::chain,
                               TrafficShape::island_inside, TrafficShape::island_across})
      for (TrafficDirection d : {TrafficDirection::push, TrafficDirection::pull}) {
        MeasuredPattern p;
        p.key = pattern_key(shape, d, world);
        p.shape = shape;
        p.direction = d;
        p.world = world;
        SizeRates size{1u << 20, {}, {}};
        for (int a = 0; a < world; ++a)
          for (int b = 0; b < world; ++b)
            if (a != b) {
              p.flows.emplace_back(a, b);
              size.sm_gbps.emplace_back(draw(10, 60));
            }
        p.sizes.push_back(std::move(size));
        for (int k = 0; k < 3; ++k) {
          p.latency_pairs.emplace_back(k % world, (k + 1) % world);
          p.idle_latency_us.emplace_back(draw(0.3, 3.3));
          p.latency_us.emplace_back(std::nullopt);
        }
        r.patterns.push_back(std::move(p));
      }
  return r;
}

}  // namespace sol_fixture
