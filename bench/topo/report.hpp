// The host-only part of `arbench topo`: GPU list, PCIe tree, relation matrix, legend and
// ring order, and the functional peer-to-peer check's matrix, as text and as JSON. The CUDA part (names, P2P, measurements) is added by
// bench/cmd_topo.cpp.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/core/peer_access.hpp"
#include "topo/topology.hpp"

namespace arbench::topo {

// Which GPUs to show and what to call them: gpus are indices into Topology::gpus in display
// order (e.g. CUDA device order), labels name them ("cuda:0"). Empty: every placed GPU in
// bus order, named GPU0, GPU1, ... like nvidia-smi.
struct Selection {
  std::vector<int> gpus;
  std::vector<std::string> labels;
};

Selection default_selection(const Topology& topo);

// The GPUs with these bus ids (e.g. CUDA devices 0..N-1, or the ranks of a run), labelled
// prefix + position ("cuda:0"); ids not placed in the topology are left out.
Selection selection_for_bus_ids(const Topology& topo, const std::vector<std::string>& bus_ids,
                                const std::string& prefix = "cuda:");

std::string render_topology(const Topology& topo, const Selection& sel = {});

// {"sysfs_root", "gpus":[...], "unplaced":[...], "tree":[...], "relations":{labels, matrix,
// legend}, "ring_order":{"gpus":[...], "labels":[...], "crossings":{...}}, "warnings":[...]}.
// Unknown values are null.
nlohmann::json topology_to_json(const Topology& topo, const Selection& sel = {});

// For a run's provenance: reads the PCIe tree under `sysfs_root` and describes the run's GPUs
// (rank r = bus_ids[r], labelled "rank:r"): {"topology": topology_to_json(...), "ring_order":
// [ranks in topology-aware order]}. Never throws for sysfs trouble (it shows as warnings).
nlohmann::json topology_provenance(const std::vector<std::string>& bus_ids,
                                   const std::filesystem::path& sysfs_root = "/");

// The functional peer-to-peer check (arbench/core/peer_access.hpp) as a matrix, row reaching
// column: "ok" with the write (store + read-back) and read latencies in µs, "BROKEN" (reported
// but the data did not arrive: what went wrong follows the table), "no P2P" (not reported, not
// tried); then the legend and, when a pair is broken, what to check.
std::string render_peer_access(const PeerAccess& m, const std::vector<std::string>& labels);
// {"method", "bound_s", "status":[[...]], "write_us":[[...]], "read_us":[[...]], "detail":[[...]]},
// [i][j]: i reaching j; unknown latencies are null.
nlohmann::json peer_access_to_json(const PeerAccess& m);

}  // namespace arbench::topo
