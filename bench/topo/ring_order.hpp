// Topology-aware ring order: the order of ranks around a ring that crosses switches, root
// complexes and sockets as few times as possible.
//
// Why it is optimal: every group of GPUs (one switch, one root complex, one socket) that is
// not the whole ring must be left and entered at least once, i.e. crossed by >= 2 ring edges.
// Listing the GPUs in depth-first order of the PCIe tree keeps every group contiguous, so
// each one is crossed exactly twice, at every level at once. Pure functions, host-only.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "topo/relation.hpp"
#include "topo/topology.hpp"

namespace arbench::topo {

// Indices into `paths` in ring order (depth-first order of the PCIe tree: NUMA node, host
// bridge, bridges, then input order for ties).
std::vector<int> ring_order(const std::vector<GpuPath>& paths);

// Ring order over a topology's placed GPUs (indices into topo.gpus).
std::vector<int> ring_order(const Topology& topo);

// Ring order for ranks given by PCI bus id (e.g. CUDA devices 0..N-1): returns positions into
// bus_ids. Ids not found in the topology keep their input order, after the placed ones.
std::vector<int> ring_order_for_bus_ids(const Topology& topo, const std::vector<std::string>& bus_ids);

// The ring over the ranks of several nodes: node after node (node 0 first), each node's ranks
// in node_orders[node] (that node's own ring order, e.g. from its PCIe tree), so the ring leaves
// and enters each node once and a rank's neighbours are on its node except at the node
// boundaries. node_of[r]: node of world rank r. Throws std::invalid_argument unless every rank
// appears once, in its own node's list.
std::vector<int> ring_order_across_nodes(const std::vector<int>& node_of,
                                         const std::vector<std::vector<int>>& node_orders);

// How many ring edges (including the closing edge last -> first) have each relation,
// indexed by static_cast<int>(Relation).
using RingCost = std::array<int, 6>;
RingCost ring_cost(const std::vector<GpuPath>& paths, std::span<const int> order);

// Number of ring edges at least as far as `level` (e.g. kPhb: edges that leave a root complex).
int ring_crossings(const RingCost& cost, Relation level);

// True when a is better than b: fewer SYS edges, then fewer >= NODE, >= PHB, >= PXB, >= PIX.
bool ring_cost_less(const RingCost& a, const RingCost& b);

}  // namespace arbench::topo
