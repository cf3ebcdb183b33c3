#include "run_links.hpp"

#include <iostream>

#include "arbench/core/errors.hpp"
#include "arbench/topo/report.hpp"
#include "arbench/topo/ring_order.hpp"
#include "arbench/topo/topology.hpp"
#include "topo_cuda.hpp"
#include "topo_probe.hpp"

namespace arbench {

RunLinks::RunLinks(const RunConfig& cfg, Backend b) {
  if (b != Backend::cuda) {
    source_ = "none: link efficiency is measured on the cuda backend only";
    return;
  }
  active_ = true;
  const auto gpus = topo::list_cuda_gpus();
  for (const auto& g : gpus) bus_ids_.push_back(g.bus_id);
  if (!cfg.links_file.empty()) {
    links_ = topo::read_links_file(cfg.links_file);  // UsageError (exit 2) names the file and the problem
    source_ = "file " + cfg.links_file;
  } else if (!cfg.link_probe) {
    source_ = "none: --no-link-probe";
  } else if (gpus.size() < 2) {
    source_ = "none: one GPU has no peer link to probe";
  } else {
    try {
      links_ = topo::run_link_probes(gpus, topo::quick_probe_options());
      source_ = "probe at start: copy-engine one-way bandwidth, 16 MiB x 5 per pair";
    } catch (const CaseError& e) {
      source_ = std::string("none: the link probe failed: ") + e.what();
      std::cerr << "arbench: " << source_ << "\n";
    }
  }
}

std::map<int, std::vector<int>> RunLinks::ring_orders(const std::vector<int>& worlds) const {
  std::map<int, std::vector<int>> out;
  if (!active_) return out;
  const topo::Topology t = topo::read_sysfs_topology("/");
  for (int w : worlds) {
    if (w > int(bus_ids_.size())) continue;
    out[w] = topo::ring_order_for_bus_ids(t, std::vector<std::string>(bus_ids_.begin(), bus_ids_.begin() + w));
  }
  return out;
}

void RunLinks::annotate(CaseResult& r) const {
  if (!links_ || !r.ok || r.c.world < 2 || r.c.world > int(bus_ids_.size())) return;
  std::vector<std::string> walk(bus_ids_.begin(), bus_ids_.begin() + r.c.world);
  // Ring-like algorithms use the links of their ring order; the others every pair.
  for (const auto& [k, v] : r.settings)
    if (k == "ring_order") {
      std::vector<std::string> ordered;
      std::size_t pos = 0;
      while (pos < v.size()) {
        const std::size_t comma = v.find(',', pos);
        const int rank = std::stoi(v.substr(pos, comma - pos));
        if (rank >= 0 && rank < r.c.world) ordered.push_back(walk[rank]);
        pos = comma == std::string::npos ? v.size() : comma + 1;
      }
      if (ordered.size() == walk.size()) walk = ordered;
    }
  const auto slowest = topo::slowest_link_for_bus_ids(*links_, walk, topo::link_pattern_for_variant(r.c.variant));
  const auto eff = topo::link_efficiency(r.busbw_gbps, slowest);
  if (!slowest || !eff) return;
  r.extra["slowest_link_GBps"] = *slowest;
  r.extra["link_efficiency"] = *eff;
}

nlohmann::json RunLinks::provenance(int max_world) const {
  if (!active_) return nullptr;
  std::vector<std::string> ranks(bus_ids_.begin(), bus_ids_.begin() + std::min<std::size_t>(max_world, bus_ids_.size()));
  nlohmann::json j = topo::topology_provenance(ranks);
  j["links_source"] = source_;
  if (links_) j["links"] = topo::links_to_json(*links_);
  return j;
}

}  // namespace arbench
