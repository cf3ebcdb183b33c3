// The per-case efficiency counter of `arbench run`: achieved busbw over the bandwidth of the
// slowest link the case's algorithm uses, with the links walked in the case's own rank order.
// Host-only: the run (bench/run/run_links.cpp) supplies the links and the GPUs' bus ids.
#pragma once

#include <string>
#include <vector>

#include "topo/links.hpp"
#include "results/results.hpp"

namespace arbench {

// The bus ids of the case's ranks in the order its algorithm walks them: rank k sits on
// bus_ids[k]; a recorded `ring_order` setting (e.g. "0,2,3,1") reorders them. An order that
// does not name each of the case's ranks once is ignored (rank order is used).
std::vector<std::string> rank_walk(const CaseResult& r, const std::vector<std::string>& bus_ids);

// Adds "slowest_link_GBps" and "link_efficiency" to r.extra for a correct case whose GPUs all
// appear in `links`; leaves r alone otherwise (failed case, one rank, more ranks than GPUs,
// an unmeasured link).
void annotate_link_efficiency(CaseResult& r, const topo::Links& links, const std::vector<std::string>& bus_ids);

}  // namespace arbench
