// What `arbench run` knows about the links between its GPUs (cuda backend only): bus ids,
// the PCIe tree (provenance and the topology-aware ring order) and link bandwidths (from
// --links or a short probe at start), and the per-case efficiency counter they give:
// achieved busbw / bandwidth of the slowest link the algorithm uses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/core/peer_access.hpp"
#include "arbench/world.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/links.hpp"
#include "results/results.hpp"
#include "sweep/run_config.hpp"

namespace arbench {

class RunLinks {
 public:
  // Reads the tree and the links for the cuda backend; does nothing on the others. In a run of
  // several processes (one GPU each) the processes exchange their GPUs' bus ids, the ring order
  // goes node by node, and there is no probe at start (--links gives the links). Collective.
  RunLinks(const RunConfig& cfg, Backend b, World& world = solo_world());
  // The P2P matrix the islands follow: what CUDA reports for each pair of GPUs and the
  // functional peer check's verdict on them (islands::working_p2p: a reported-but-broken pair is
  // no P2P, as in `arbench topo`).
  struct PeerMatrix {
    std::vector<std::vector<int>> reported;
    PeerAccess checked;
  };
  // The cuda backend's behaviour on a machine described, not read (tests: a fixture sysfs tree
  // and the GPUs' bus ids by rank; one process). Links come from cfg.links_file only; nothing is
  // probed; the P2P matrix is `p2p` (none: the tree alone decides).
  RunLinks(const RunConfig& cfg, std::vector<std::string> bus_ids, std::string sysfs_root,
           std::optional<PeerMatrix> p2p = std::nullopt);
  // Per world size in cfg.gpus: the ring order that follows the PCIe tree.
  std::map<int, std::vector<int>> ring_orders(const std::vector<int>& worlds) const;
  // Per world size in cfg.gpus: the islands of GPUs 0..w-1 (bench/islands/derive.hpp: the PCIe
  // tree, refined by the working P2P matrix: CUDA's, less the pairs the functional peer check
  // found broken, checked once per run); a size whose islands cannot be derived is left out.
  // Empty off the cuda backend and with one process per GPU (the island variants need one).
  std::map<int, std::vector<int>> islands(const std::vector<int>& worlds) const;
  // The derivation's notes of the last islands() call, by world size (a group without P2P both
  // ways between every pair split, GPUs of unknown NUMA node): for the result and the console.
  const std::map<int, std::vector<std::string>>& island_notes() const { return island_notes_; }
  // Per world size: whether NVML says every pair of GPUs 0..w-1 is NVLink-connected (false when
  // NVML cannot tell).
  std::map<int, bool> all_nvlink(const std::vector<int>& worlds) const;
  // Adds "link_efficiency" and "slowest_link_GBps" to r.extra when the links are known, and
  // refines an NCCL case's data path ("NCCL") to the transport NCCL uses between its GPUs by
  // NCCL's own rule and this environment's NCCL_P2P_LEVEL / NCCL_P2P_DISABLE (measure/data_path.hpp);
  // "model_us" (bench/islands/cost_model.hpp) when the links' latencies and bandwidths and the
  // case's islands (`islands`, by world size) are known and the variant is modelled.
  void annotate(CaseResult& r, const std::map<int, std::vector<int>>& islands = {}) const;
  // {"topology": ..., "ring_order": ..., "links_source": ...} for the provenance (null off cuda).
  nlohmann::json provenance(int max_world) const;
  const std::string& source() const { return source_; }
  // The GPU of each rank, by PCI bus id (one process: = CUDA ordinal); empty off the cuda backend.
  const std::vector<std::string>& bus_ids() const { return bus_ids_; }

 private:
  // Several processes: this process's GPU (the one the fabric will choose) and everyone's.
  void exchange_bus_ids(World& world, const std::vector<topo::CudaGpu>& gpus);
  // --links FILE when given (true), else false.
  bool read_links_file(const RunConfig& cfg);
  // The P2P matrix of this machine's GPUs (CUDA's report, then the functional check of every
  // reported pair, once), or the described machine's.
  const PeerMatrix& peer_matrix() const;

  bool active_ = false;
  World* world_ = nullptr;            // several processes: one rank each; else null
  std::vector<std::string> bus_ids_;  // by rank (one process: = CUDA ordinal)
  std::string sysfs_root_ = "/";      // where the PCIe tree is read (tests: a fixture tree)
  std::optional<topo::Links> links_;
  std::string source_;  // where the links came from, or why there are none
  mutable std::map<int, std::vector<std::string>> island_notes_;  // by world size: islands()'s notes
  bool topo_amd_cpu_ = false;  // NCCL lets two GPUs on an AMD CPU use P2P at any distance
  BrokenPair planted_;          // the test switch ARBENCH_TEST_BROKEN_P2P, for the peer check
  mutable std::optional<PeerMatrix> p2p_;  // peer_matrix(), once known
};

}  // namespace arbench
