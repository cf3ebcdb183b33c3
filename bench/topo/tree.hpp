// The PCIe tree of the GPUs: NUMA node > host bridge > root port > switch ports > GPU,
// keeping only the bridges that lead to a GPU. Drawn as indented text and as JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topo/topology.hpp"

namespace arbench::topo {

struct TreeNode {
  enum class Kind : std::uint8_t { kRoot, kNumaNode, kHostBridge, kRootPort, kSwitchUpstream, kSwitchDownstream, kGpu };
  Kind kind = Kind::kRoot;
  std::string name;  // PCI address, host bridge name, or NUMA node number ("unknown")
  int gpu = -1;      // index into Topology::gpus for kGpu
  std::vector<TreeNode> children;
};

const char* tree_kind_name(TreeNode::Kind k);  // "numa_node", "host_bridge", "root_port", ...

// Children appear in ring order (depth-first order), so the drawing and the ring agree.
TreeNode build_tree(const Topology& topo);

// "Gen5 x16 (max Gen5 x16)", "unknown", "Gen1 x16 (max Gen5 x16)".
std::string format_link(const PcieLink& link);

// {"current": {"speed_gts", "generation", "width"}, "max": {...}}; unknown values are null.
nlohmann::json link_to_json(const PcieLink& link);

// Indented drawing. labels[i] names topo.gpus[i] (e.g. "GPU0", "cuda:3"); empty -> "GPU<i>".
std::string render_tree(const Topology& topo, const std::vector<std::string>& labels = {});

nlohmann::json tree_to_json(const Topology& topo, const std::vector<std::string>& labels = {});

}  // namespace arbench::topo
