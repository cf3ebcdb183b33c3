// Every variant has a traffic pattern, and every pattern is an all-reduce's: the check the tests
// run on the registry (and a user's build with its peers), so a variant added without its pattern,
// or with one that forgets a peer, fails before any floor is priced from it.
#pragma once

#include <string>
#include <vector>

#include "arbench/variant.hpp"

namespace arbench::sol {

// One line per problem: a variant (or a listed configuration) without a traffic function, or whose
// traffic for a sample of cases (world sizes 2, 3, 4 and 8; sizes from 1 KiB to 64 MiB; islands
// in two halves for the island variants) has no schedule or one traffic_problem rejects. A case
// the variant declines (Traffic::declined: ce-island on the 1+2 halves of 3 ranks) is no gap, but
// a variant that declines every case is.
std::vector<std::string> traffic_gaps(const Registry& reg);

}  // namespace arbench::sol
