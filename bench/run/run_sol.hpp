// The speed-of-light floor in `arbench run` (bench/sol/; docs/method.md, "The floor of a case"):
// where the pattern rates come from, once per run, and every case's floor from them.
//   cuda         the "patterns" object of --links FILE (`arbench topo --out`: measured once per
//                box), else a short pattern probe at start (the run's world sizes; about 10 s at
//                most); one process per GPU: the file only
//   host         the same patterns on CPU threads at start (CPU timing, and every floor says so)
//   single-gpu   none: virtual ranks on one GPU move nothing between GPUs
// --no-sol turns it off.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/variant.hpp"
#include "arbench/world.hpp"
#include "results/results.hpp"
#include "sol/pattern_rates.hpp"
#include "sol/probe_plan.hpp"
#include "sweep/run_config.hpp"
#include "topo/gpu/cuda_gpus.hpp"

namespace arbench {

// The GPU pattern probe of `plan` at each of `sizes` (topo/gpu/pattern_probe.hpp: SM copies, copy
// engines, the hop latency at the largest size), assembled (sol::add_size). `budget_s` bounds it all.
sol::PatternRates measure_pattern_rates(const std::vector<topo::CudaGpu>& gpus, const std::vector<sol::PlannedPattern>& plan,
                                        const std::vector<std::size_t>& sizes, int repetitions, double wait_timeout_s,
                                        double budget_s);

class RunSol {
 public:
  // `bus_ids`: the GPU of each rank (cuda backend; RunLinks::bus_ids); `ring_orders`, `islands`:
  // by world size, as the run's variants use them.
  RunSol(const RunConfig& cfg, Backend b, const World& world, const std::vector<std::string>& bus_ids,
         const std::map<int, std::vector<int>>& ring_orders, const std::map<int, std::vector<int>>& islands);
  // Sets r.sol (or r.sol_none) when the run has rates.
  void annotate(CaseResult& r, const Registry& reg) const;
  bool active() const { return rates_.has_value(); }
  // Per world size, the copy-engine rate of one flow the rates hold (sol::copy_engine_rates): the
  // copy-engine variants' default chunk (Tuning::copy_engine_gbps). Empty without GPU rates.
  std::map<int, double> copy_engine_gbps(const std::vector<int>& worlds) const {
    return rates_ ? sol::copy_engine_rates(*rates_, worlds) : std::map<int, double>{};
  }
  // The banner's line: where the rates came from, or why there are none.
  const std::string& source() const { return source_; }
  // provenance.sol: the source and the rates every floor of the run used (null without rates).
  nlohmann::json provenance() const;

 private:
  std::optional<sol::PatternRates> rates_;
  std::string source_;
  std::vector<int> position_of_rank_;
  std::map<int, std::vector<int>> ring_orders_, islands_;
  int arch_ = 0;
};

}  // namespace arbench
