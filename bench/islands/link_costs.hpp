// The cost model's link costs (cost_model.hpp) from `arbench topo`'s measured matrices: the
// median over the rank pairs inside one island, and over the pairs across islands, of the
// one-way latency (latency_us) and of the bandwidth (push_unidir_gbps, SM stores as the
// kernels do; else ce_unidir_gbps). The cross bandwidth is taken as what all pairs of one
// direction share: the root complex or socket link between islands is one link.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "islands/cost_model.hpp"
#include "topo/links.hpp"

namespace arbench::islands {

// `index[r]`: rank r's position in the links file (topo::link_indices_for_bus_ids); island_of
// by rank. nullopt, with the reason in *why, when a matrix or a pair of either kind is missing.
std::optional<LinkCosts> link_costs(const topo::Links& links, const std::vector<int>& index,
                                    const std::vector<int>& island_of, std::string* why = nullptr);

}  // namespace arbench::islands
