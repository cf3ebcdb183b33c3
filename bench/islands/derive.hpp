// Islands from the PCIe tree: the largest groups of GPUs that share a PCIe switch or a root
// complex, with P2P among them (docs/topology.md, "Islands").
//
// Rule, per GPU, the finest level at which it has company:
//   1. switch      GPUs below the same root port (one switch tree: PIX/PXB between them)
//   2. root        of the GPUs left alone by 1, those under the same host bridge (direct-attached
//      complex     GPUs on the root ports of one root complex: PHB between them)
//   3. socket      of the GPUs still alone, those of the same NUMA node (one GPU per root
//                  complex, as on AMD EPYC: NODE between them)
//   4. alone       an island of its own
// So crossing from one island to another always goes up through a root complex or the socket
// link, where transfers are slower and shared. A GPU whose NUMA node is unknown (sysfs -1 or
// missing) joins nobody at step 3. Then, when the P2P matrix is known, an island whose GPUs lack
// P2P both ways between some pair is split into cliques of P2P (p2p_split.hpp: greedy in rank
// order; a note names the missing pairs): the island kernels need P2P between every pair inside,
// while between islands the host-memory path does without. Any number of GPUs is derived (a
// note says when there are more than the island kernels' 8 ranks). GPUs sysfs cannot place
// leave the islands unknown (the island variants are skipped with the reason).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arbench/core/peer_access.hpp"
#include "topo/topology.hpp"

namespace arbench::islands {

struct Derived {
  std::vector<int> island_of;       // by rank: island number (0.. in the order of the lowest rank)
  std::vector<std::string> basis;   // by island: what its GPUs share ("switch below 0000:00:01.1")
  std::vector<std::string> notes;   // splits for lack of P2P, GPUs of unknown NUMA node, > 8 GPUs
  std::string unknown;              // non-empty: the islands could not be derived, and why
};

// The P2P matrix islands follow: what CUDA reports (reported[a][b]: cudaDeviceCanAccessPeer)
// without the pairs the functional peer check found broken (checked: a reported pair whose data
// did not arrive, as on boxes whose PCIe ports redirect peer traffic). `arbench topo` and `arbench
// run` both derive their islands from it, so a reported-but-broken pair splits an island in both.
std::vector<std::vector<int>> working_p2p(std::vector<std::vector<int>> reported, const PeerAccess& checked);

// The islands of the GPUs `paths[r]` (rank r; nullopt: not placed in sysfs). p2p[a][b]: whether
// a reaches b directly (empty: not known).
Derived derive_islands(const std::vector<std::optional<topo::GpuPath>>& paths,
                       const std::vector<std::vector<int>>& p2p = {});

// The same for GPUs given by PCI bus id (e.g. CUDA devices 0..N-1, or a run's ranks).
Derived derive_islands(const topo::Topology& topo, const std::vector<std::string>& bus_ids,
                       const std::vector<std::vector<int>>& p2p = {});

// "0-3,4-7" (algo::islands_text's form) for any number of GPUs; island_of numbered 0.. in the
// order of the lowest rank, as Derived's.
std::string islands_text_of(const std::vector<int>& island_of);

// "Islands (...): 0-3,4-7" and one line per island, for `arbench topo`.
std::string render_islands(const Derived& d, const std::vector<std::string>& labels);
// {"islands": "0-3,4-7", "island_of": [...], "basis": [...], "notes": [...]} or {"unknown": why}.
nlohmann::json islands_to_json(const Derived& d);

}  // namespace arbench::islands
