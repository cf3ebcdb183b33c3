// `arbench topo` in a run of several processes (mpirun / srun over several nodes): each node's
// local process 0 probes its node (tree, P2P matrix, links) while the node's other processes
// wait, and world process 0 prints every node's report, gathered over the World.
#pragma once

#include <functional>
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "arbench/world.hpp"

namespace arbench::topo {

// Runs `probe` (text to its stream, JSON returned) on each node's local process 0; process 0
// prints each node's text to `out` under a header naming the node and its processes. Returns
// the document to write: a one-node run's is that node's (usable as `arbench run --links`);
// several nodes give {"schema": "arbench-topo-nodes/1", "nodes": [{"host", "processes", "topo"}]}.
// A node whose probe failed has its error shown in its place, and then every process throws
// that error (AgreedError). Collective.
nlohmann::json report_every_node(World& w, const std::function<nlohmann::json(std::ostream&)>& probe,
                                 std::ostream& out);

}  // namespace arbench::topo
