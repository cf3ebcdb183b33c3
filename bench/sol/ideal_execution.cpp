// An ideal execution of a schedule's traffic; see ideal_execution.hpp.
#include "sol/ideal_execution.hpp"

#include <algorithm>
#include <vector>

namespace arbench::sol {
namespace {

// A phase as the execution needs it: each flow's time per step (us) and the phase's hop.
struct TimedPhase {
  const TrafficPhase* phase = nullptr;
  std::vector<double> step_us;  // per flow, one step's bytes at its rate
  double hop_us = 0;
  int waits = 0;
};

std::optional<std::vector<TimedPhase>> timed(const TrafficSchedule& s, int world, const FloorInputs& in,
                                             std::string* why) {
  const std::vector<int> waits = phase_waits(s);
  std::vector<TimedPhase> out;
  for (std::size_t k = 0; k < s.phases.size(); ++k) {
    const TrafficPhase& phase = s.phases[k];
    const MeasuredPattern* p = in.rates->find(phase.shape, phase.direction, world);
    if (p == nullptr) {
      *why = "the pattern " + pattern_key(phase.shape, phase.direction, world) + " was not measured";
      return std::nullopt;
    }
    TimedPhase t{&phase, {}, phase_hop(*p).us.value_or(0), waits[k]};
    for (const TrafficFlow& f : phase.flows) {
      std::string mover;
      bool fell_back = false;
      const auto gbps = priced_flow_gbps(*p, in, f, &mover, &fell_back, why);
      if (!gbps) return std::nullopt;
      t.step_us.push_back(f.bytes / *gbps / 1e3);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// One phase after another, step after step; `ready`: when each rank has all it needs.
double in_sequence(const std::vector<TimedPhase>& phases, int world) {
  std::vector<double> ready(std::size_t(world), 0.0);
  for (const TimedPhase& t : phases) {
    const TrafficPhase& p = *t.phase;
    // Every rank finishes the phase before; then the phase's barriers (waits beyond one per step).
    const double start = *std::max_element(ready.begin(), ready.end()) + std::max(0, t.waits - p.steps) * t.hop_us;
    std::fill(ready.begin(), ready.end(), start);
    std::vector<double> link_free(p.flows.size(), start);
    for (int step = 0; step < p.steps; ++step) {
      std::vector<double> next = ready;
      for (std::size_t i = 0; i < p.flows.size(); ++i) {
        const TrafficFlow& f = p.flows[i];
        const double leave = std::max(ready[std::size_t(f.from)], link_free[i]);
        link_free[i] = leave + t.step_us[i];
        next[std::size_t(f.to)] = std::max(next[std::size_t(f.to)], link_free[i] + t.hop_us);
      }
      ready = std::move(next);
    }
  }
  return *std::max_element(ready.begin(), ready.end());
}

// Every pack through every phase, the packs streaming: `chunks` pieces per flow and step.
double pipelined(const std::vector<TimedPhase>& phases, int world, int chunks) {
  // have[r][c]: when rank r holds chunk c of what the next phase sends.
  std::vector<std::vector<double>> have(std::size_t(world), std::vector<double>(std::size_t(chunks), 0.0));
  for (const TimedPhase& t : phases) {
    const TrafficPhase& p = *t.phase;
    auto got = have;
    for (std::size_t i = 0; i < p.flows.size(); ++i) {
      const TrafficFlow& f = p.flows[i];
      double link_free = 0;
      for (int step = 0; step < p.steps; ++step)
        for (int c = 0; c < chunks; ++c) {
          const double leave = std::max(have[std::size_t(f.from)][std::size_t(c)], link_free);
          link_free = leave + t.step_us[i] / chunks;
          double& landed = got[std::size_t(f.to)][std::size_t(c)];
          landed = std::max(landed, link_free + std::max(1, t.waits) * t.hop_us);
        }
    }
    have = std::move(got);
  }
  double end = 0;
  for (const auto& r : have) end = std::max(end, *std::max_element(r.begin(), r.end()));
  return end;
}

}  // namespace

std::optional<double> ideal_execution_us(const TrafficSchedule& s, int world, const FloorInputs& in, int chunks,
                                         std::string* why) {
  if (in.rates == nullptr || world < 2 || chunks < 1) {
    *why = in.rates == nullptr ? "no pattern rates" : "fewer than two ranks or no chunk";
    return std::nullopt;
  }
  const auto phases = timed(s, world, in, why);
  if (!phases) return std::nullopt;
  return s.pipelined ? pipelined(*phases, world, chunks) : in_sequence(*phases, world);
}

}  // namespace arbench::sol
