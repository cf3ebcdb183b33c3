#include "run/run_links.hpp"

#include <iostream>

#include "arbench/core/errors.hpp"
#include "topo/report.hpp"
#include "topo/ring_order.hpp"
#include "topo/topology.hpp"
#include "run/link_efficiency.hpp"
#include "topo/cuda_gpus.hpp"
#include "topo/probe.hpp"

namespace arbench {

bool RunLinks::read_links_file(const RunConfig& cfg) {
  if (cfg.links_file.empty()) return false;
  links_ = topo::read_links_file(cfg.links_file);  // UsageError (exit 2) names the file and the problem
  source_ = "file " + cfg.links_file;
  return true;
}

RunLinks::RunLinks(const RunConfig& cfg, Backend b) {
  if (b != Backend::cuda) {
    source_ = "none: link efficiency is measured on the cuda backend only";
    return;
  }
  active_ = true;
  const auto gpus = topo::list_cuda_gpus();
  for (const auto& g : gpus) bus_ids_.push_back(g.bus_id);
  if (read_links_file(cfg)) return;
  if (!cfg.link_probe) {
    source_ = "none: --no-link-probe";
    return;
  }
  if (gpus.size() < 2) {
    source_ = "none: one GPU has no peer link to probe";
    return;
  }
  try {
    links_ = topo::run_link_probes(gpus, topo::quick_probe_options());
    source_ = "probe at start: copy-engine one-way bandwidth, 16 MiB x 5 per pair";
  } catch (const CaseError& e) {
    source_ = std::string("none: the link probe failed: ") + e.what();
    std::cerr << "arbench: " << source_ << "\n";
  }
}

RunLinks::RunLinks(const RunConfig& cfg, std::vector<std::string> bus_ids, std::string sysfs_root)
    : active_(true), bus_ids_(std::move(bus_ids)), sysfs_root_(std::move(sysfs_root)) {
  if (!read_links_file(cfg)) source_ = "none: no --links file (a described machine is never probed)";
}

std::map<int, std::vector<int>> RunLinks::ring_orders(const std::vector<int>& worlds) const {
  std::map<int, std::vector<int>> out;
  if (!active_) return out;
  const topo::Topology t = topo::read_sysfs_topology(sysfs_root_);
  for (int w : worlds) {
    if (w > int(bus_ids_.size())) continue;
    out[w] = topo::ring_order_for_bus_ids(t, std::vector<std::string>(bus_ids_.begin(), bus_ids_.begin() + w));
  }
  return out;
}

void RunLinks::annotate(CaseResult& r) const {
  if (links_) annotate_link_efficiency(r, *links_, bus_ids_);
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
