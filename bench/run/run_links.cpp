#include "run/run_links.hpp"

#include <iostream>

#include "arbench/core/errors.hpp"
#include "topo/report.hpp"
#include "topo/ring_order.hpp"
#include "topo/topology.hpp"
#include "run/link_efficiency.hpp"
#include "topo/cuda_gpus.hpp"
#include "topo/nvml_loader.hpp"
#include "topo/probe.hpp"

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

std::map<int, bool> RunLinks::all_nvlink(const std::vector<int>& worlds) const {
  std::map<int, bool> out;
  if (!active_) return out;
  const auto nvml = topo::Nvml::load();
  for (int w : worlds) {
    bool all = nvml != nullptr && w <= int(bus_ids_.size());
    for (int a = 0; all && a < w; ++a)
      for (int b = a + 1; all && b < w; ++b) all = nvml->nvlink_p2p(bus_ids_[a], bus_ids_[b]).value_or(false);
    out[w] = all;
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
