// nvidia-smi-style relation codes between two GPUs, computed from their PCIe paths.
// Ordered from closest to farthest, so codes compare with < ("farther than").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "topo/topology.hpp"

namespace arbench::topo {

enum class Relation : std::uint8_t {
  kSelf,  // X
  kPix,   // at most one PCIe switch between them
  kPxb,   // several PCIe bridges (nested switches), no host bridge
  kPhb,   // through one PCIe host bridge (same root complex, different root ports)
  kNode,  // between host bridges of one NUMA node (one CPU socket)
  kSys,   // across the CPU interconnect between NUMA nodes (UPI / Infinity Fabric)
};

std::string_view relation_code(Relation r);  // "X", "PIX", "PXB", "PHB", "NODE", "SYS"
std::string_view relation_meaning(Relation r);
std::vector<Relation> all_relations();

// The relation of two GPU paths. Different host bridges: NODE when both NUMA nodes are known
// and equal (-1 = the kernel's "no NUMA", i.e. one node), else SYS (the conservative answer
// when a NUMA node is unknown).
Relation relation_between(const GpuPath& a, const GpuPath& b);

// Full matrix over the given GPUs (indices into topo.gpus), X on the diagonal.
std::vector<std::vector<Relation>> relation_matrix(const Topology& topo, const std::vector<int>& gpus);

// The matrix as text: a header of labels, one row per GPU, then the legend.
std::string render_relation_matrix(const std::vector<std::vector<Relation>>& m,
                                   const std::vector<std::string>& labels);
std::string relation_legend();

}  // namespace arbench::topo
