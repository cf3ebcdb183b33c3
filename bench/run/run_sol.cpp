// The speed-of-light floor in `arbench run`; see run_sol.hpp.
#include "run/run_sol.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>

#include "arbench/core/errors.hpp"
#include "sol/floor.hpp"
#include "sol/host_probe.hpp"
#include "sol/round_trips.hpp"
#include "topo/gpu/pattern_probe.hpp"

namespace arbench {

sol::PatternRates measure_pattern_rates(const std::vector<topo::CudaGpu>& gpus, const std::vector<sol::PlannedPattern>& plan,
                                        const std::vector<std::size_t>& sizes, int repetitions, double wait_timeout_s,
                                        double budget_s) {
  sol::PatternRates rates;
  rates.timing = "gpu";
  rates.method = "every flow of a pattern at once behind one start gate: SM copies (one kernel per GPU, 16-byte "
                 "packs) and copy engines (cudaMemcpyPeerAsync, a stream per flow); hop: SM flag ping-pong with "
                 "nothing else running (the floor's) and while the pattern's copy-engine load runs";
  rates.repetitions = repetitions;
  for (const auto& g : gpus) rates.positions.push_back(g.bus_id);
  std::vector<topo::Pattern> patterns;
  for (const auto& p : plan) patterns.push_back(p.pattern);
  std::vector<std::size_t> sorted = sizes;
  std::sort(sorted.begin(), sorted.end());
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t s = 0; s < sorted.size(); ++s) {
    topo::PatternProbeOptions opt;
    opt.bytes = sorted[s];
    opt.repetitions = repetitions;
    opt.wait_timeout_s = wait_timeout_s;
    opt.copy_engine = true;
    opt.latency_rounds = s + 1 == sorted.size() ? 200 : 0;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    opt.budget_s = std::max(0.0, budget_s - spent);
    sol::add_size(rates, plan, sorted[s] / 16 * 16, topo::run_pattern_probe(gpus, patterns, opt));
  }
  return rates;
}

RunSol::RunSol(const RunConfig& cfg, Backend b, const World& world, const std::vector<std::string>& bus_ids,
               const std::map<int, std::vector<int>>& ring_orders, const std::map<int, std::vector<int>>& islands)
    : ring_orders_(ring_orders), islands_(islands) {
  if (!cfg.sol) {
    source_ = "none: --no-sol";
    return;
  }
  if (b == Backend::single_gpu) {
    source_ = "none: virtual ranks on one GPU move nothing between GPUs";
    return;
  }
  if (b == Backend::host) {
    if (world.multi_process()) {
      source_ = "none: the CPU pattern probe runs with one process only";
      return;
    }
    const int ranks = *std::max_element(cfg.gpus.begin(), cfg.gpus.end());
    rates_ = sol::run_host_pattern_probe(sol::probe_plan(ranks, cfg.gpus, ring_orders, islands), ranks, {});
    source_ = "CPU threads at start (CPU timing: the floors of CPU twins, nothing about GPUs)";
    return;
  }
  if (!cfg.links_file.empty()) {
    rates_ = sol::read_pattern_rates(cfg.links_file);  // UsageError names the file and what is wrong
    if (rates_) source_ = "file " + cfg.links_file;
  }
  if (!rates_ && world.multi_process()) {
    source_ = "none: no pattern probe at start with one process per GPU; give --links FILE (arbench topo --out)";
    return;
  }
  if (!rates_) {
    const auto gpus = topo::list_cuda_gpus();
    if (gpus.size() < 2) {
      source_ = "none: one GPU has no pattern between GPUs";
      return;
    }
    try {
      rates_ = measure_pattern_rates(gpus, sol::probe_plan(int(gpus.size()), cfg.gpus, ring_orders, islands),
                                     {std::size_t{256} << 10, std::size_t{4} << 20}, 3, std::min(cfg.timeout_s, 5.0), 10);
      source_ = "pattern probe at start (256K and 4M per flow; `arbench topo --out FILE` measures more, once per box)";
    } catch (const CaseError& e) {
      source_ = std::string("none: the pattern probe failed: ") + e.what();
      std::cerr << "arbench: " << source_ << "\n";
      return;
    }
  }
  for (const auto& id : bus_ids) {
    const auto it = std::find(rates_->positions.begin(), rates_->positions.end(), id);
    position_of_rank_.push_back(it == rates_->positions.end() ? -1 : int(it - rates_->positions.begin()));
  }
  try {
    const auto gpus = topo::list_cuda_gpus();
    if (!gpus.empty()) arch_ = gpus.front().cc_major * 10 + gpus.front().cc_minor;
  } catch (const Error&) {
  }
}

void RunSol::annotate(CaseResult& r, const Registry& reg) const {
  if (!rates_) return;
  sol::CaseContext ctx;
  if (auto it = islands_.find(r.c.world); it != islands_.end()) ctx.island_of = it->second;
  if (auto it = ring_orders_.find(r.c.world); it != ring_orders_.end()) ctx.ring_order = it->second;
  ctx.arch = arch_;
  sol::FloorInputs in{&*rates_, position_of_rank_, source_};
  sol::annotate_floor(r, reg, ctx, in, &sol::kernel_round_trips);
}

nlohmann::json RunSol::provenance() const {
  nlohmann::json j = {{"source", source_}};
  if (rates_) j["rates"] = sol::pattern_rates_to_json(*rates_);
  return j;
}

}  // namespace arbench
