#include "run/run_links.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "islands/cost_model.hpp"
#include "islands/derive.hpp"
#include "islands/link_costs.hpp"
#include "kernels/fabric/cuda/peer_probe/peer_probe_cuda.hpp"
#include "kernels/fabric/cuda/process/process_gpu.hpp"
#include "topo/report.hpp"
#include "topo/ring_order.hpp"
#include "topo/topology.hpp"
#include "measure/data_path.hpp"
#include "measure/link_efficiency.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/nvml_loader.hpp"
#include "topo/gpu/probe.hpp"

namespace arbench {

bool RunLinks::read_links_file(const RunConfig& cfg) {
  if (cfg.links_file.empty()) return false;
  links_ = topo::read_links_file(cfg.links_file);  // UsageError (exit 2) names the file and the problem
  source_ = "file " + cfg.links_file;
  return true;
}

RunLinks::RunLinks(const RunConfig& cfg, Backend b, World& world)
    : topo_amd_cpu_(amd_cpu()), planted_(cfg.test_broken_p2p) {
  if (b != Backend::cuda) {
    source_ = "none: link efficiency is measured on the cuda backend only";
    return;
  }
  active_ = true;
  const auto gpus = topo::list_cuda_gpus();
  if (world.multi_process())
    exchange_bus_ids(world, gpus);
  else
    for (const auto& g : gpus) bus_ids_.push_back(g.bus_id);
  if (world_ != nullptr && world.layout().nodes > 1) {
    source_ = "none: links between nodes are not measured";
    return;
  }
  if (read_links_file(cfg)) return;
  if (world_ != nullptr) {
    source_ = "none: no probe at start with one process per GPU; give --links FILE (arbench topo --out)";
    return;
  }
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

RunLinks::RunLinks(const RunConfig& cfg, std::vector<std::string> bus_ids, std::string sysfs_root,
                   std::optional<PeerMatrix> p2p)
    : active_(true), bus_ids_(std::move(bus_ids)), sysfs_root_(std::move(sysfs_root)),
      p2p_(p2p ? std::move(p2p) : std::optional<PeerMatrix>(PeerMatrix{})) {
  if (!read_links_file(cfg)) source_ = "none: no --links file (a described machine is never probed)";
}

void RunLinks::exchange_bus_ids(World& world, const std::vector<topo::CudaGpu>& gpus) {
  world_ = &world;
  const WorldLayout& l = world.layout();
  std::string mine, failure;
  try {
    const int gpu = choose_process_gpu(l.local_rank, l.local_size, int(gpus.size()), l.hosts.at(std::size_t(world.rank())));
    mine = gpus.at(std::size_t(gpu)).bus_id;
  } catch (...) {
    failure = error_token(std::current_exception());
  }
  // Every process reaches both collectives, whatever happened to it.
  const std::string agreed = first_failure(world, failure, "choosing the processes' GPUs");
  if (!agreed.empty()) throw_agreed(agreed);
  bus_ids_ = world.all_gather(mine, "exchanging the GPUs' bus ids");
  if (std::string why = shared_gpu_problem(l.hosts, bus_ids_); !why.empty()) throw EnvironmentError(why);
}

std::map<int, std::vector<int>> RunLinks::ring_orders(const std::vector<int>& worlds) const {
  std::map<int, std::vector<int>> out;
  if (!active_) return out;
  const topo::Topology t = topo::read_sysfs_topology(sysfs_root_);
  if (world_ != nullptr) {
    // Node by node; each node orders its own ranks by its own PCIe tree (only it can read it).
    const WorldLayout& l = world_->layout();
    std::vector<int> here;
    std::vector<std::string> here_ids;
    for (int r = 0; r < world_->size(); ++r)
      if (l.node_of[std::size_t(r)] == l.node_of[std::size_t(world_->rank())]) {
        here.push_back(r);
        here_ids.push_back(bus_ids_[std::size_t(r)]);
      }
    std::string mine;
    if (l.local_rank == 0)
      for (int k : topo::ring_order_for_bus_ids(t, here_ids)) mine += std::to_string(here[std::size_t(k)]) + " ";
    std::vector<std::vector<int>> node_orders(std::size_t(l.nodes));
    const auto all = world_->all_gather(mine, "exchanging the nodes' ring orders");
    for (int r = 0; r < world_->size(); ++r) {
      std::istringstream in(all[std::size_t(r)]);
      for (int x; in >> x;) node_orders[std::size_t(l.node_of[std::size_t(r)])].push_back(x);
    }
    out[world_->size()] = topo::ring_order_across_nodes(l.node_of, node_orders);
    return out;
  }
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
    bool all = nvml != nullptr && w <= int(bus_ids_.size()) && (world_ == nullptr || world_->layout().nodes == 1);
    for (int a = 0; all && a < w; ++a)
      for (int b = a + 1; all && b < w; ++b) all = nvml->nvlink_p2p(bus_ids_[a], bus_ids_[b]).value_or(false);
    out[w] = all;
  }
  return out;
}

const RunLinks::PeerMatrix& RunLinks::peer_matrix() const {
  if (!p2p_) {
    PeerMatrix m;
    m.reported = topo::query_p2p(int(bus_ids_.size())).access;
    std::vector<int> ordinals;
    for (int d = 0; d < int(bus_ids_.size()); ++d) ordinals.push_back(d);
    // What `arbench topo` runs: every reported pair writes and reads a pattern through its mapping.
    m.checked = check_device_peer_access(ordinals, m.reported, kPeerCheckBound_s, planted_);
    p2p_ = std::move(m);
  }
  return *p2p_;
}

std::map<int, std::vector<int>> RunLinks::islands(const std::vector<int>& worlds) const {
  std::map<int, std::vector<int>> out;
  island_notes_.clear();
  if (!active_ || world_ != nullptr) return out;
  const topo::Topology t = topo::read_sysfs_topology(sysfs_root_);
  const std::vector<std::vector<int>> p2p = islands::working_p2p(peer_matrix().reported, peer_matrix().checked);
  for (int w : worlds) {
    if (w > int(bus_ids_.size())) continue;
    std::vector<std::vector<int>> access;
    for (int a = 0; a < w && std::size_t(a) < p2p.size(); ++a)
      access.emplace_back(p2p[std::size_t(a)].begin(), p2p[std::size_t(a)].begin() + w);
    const islands::Derived d =
        islands::derive_islands(t, std::vector<std::string>(bus_ids_.begin(), bus_ids_.begin() + w), access);
    if (d.unknown.empty()) out[w] = d.island_of;
    if (!d.notes.empty()) island_notes_[w] = d.notes;
  }
  return out;
}

void RunLinks::annotate(CaseResult& r, const std::map<int, std::vector<int>>& islands) const {
  // links_ is only set where it describes every rank's GPU (one node).
  if (links_) {
    annotate_link_efficiency(r, *links_, bus_ids_);
    const auto it = islands.find(r.c.world);
    if (it != islands.end() && r.c.family == Family::allreduce && r.ok && int(bus_ids_.size()) >= r.c.world) {
      const std::vector<std::string> ids(bus_ids_.begin(), bus_ids_.begin() + r.c.world);
      if (const auto costs = islands::link_costs(*links_, topo::link_indices_for_bus_ids(*links_, ids), it->second))
        if (const auto p = islands::predict(r.c.variant, it->second, r.c.bytes, *costs))
          r.extra["model_us"] = p->seconds() * 1e6;
    }
  }
  if (r.data_path != "NCCL" || !active_ || r.c.world > int(bus_ids_.size())) return;
  if (world_ != nullptr && world_->layout().nodes > 1) {
    r.data_path = "NCCL (across nodes: its network transport between them)";
    return;
  }
  const topo::Topology t = topo::read_sysfs_topology(sysfs_root_);
  std::vector<int> at;
  for (int rank = 0; rank < r.c.world; ++rank) {
    const int g = t.find_gpu(bus_ids_[std::size_t(rank)]);
    if (g < 0) return;  // a GPU the tree does not place: NCCL's choice stays unknown
    at.push_back(g);
  }
  std::map<std::string, std::string> env;
  for (const char* k : {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"})
    if (const char* v = std::getenv(k)) env[k] = v;
  const auto nv = all_nvlink({r.c.world});
  r.data_path = nccl_data_path(topo::relation_matrix(t, at), env, topo_amd_cpu_ && t.gpus.size() <= 2,
                               nv.count(r.c.world) && nv.at(r.c.world));
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
