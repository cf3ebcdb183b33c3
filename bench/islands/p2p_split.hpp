// Splitting a group of GPUs into islands with P2P both ways between every pair (a clique of the
// P2P graph), as the island kernels need: every rank of an island loads from and stores to every
// other rank's scratch. Connected components would not do: a chain 0<->1<->2 without 0<->2 is
// connected, yet rank 0 cannot reach rank 2's memory.
//
// The split is greedy in rank order, so it is stable and easy to predict: each island starts at
// the lowest GPU not yet placed and takes, in rank order, every GPU that has P2P both ways with
// all of the island's GPUs so far. A chain 0<->1<->2 gives {0,1},{2}; a one-way pair (0->1 but
// not 1->0) gives {0},{1}. Greedy is not always the fewest islands (that is a minimum clique
// cover, NP-hard), but on the boxes this is for a group lacks P2P because of one GPU or one
// switch, and greedy finds the same split there.
#pragma once

#include <string>
#include <vector>

namespace arbench::islands {

struct P2pSplit {
  std::vector<std::vector<int>> islands;  // each ascending; in the order of their lowest GPU
  std::vector<std::string> missing;       // the pairs of the group without P2P both ways:
                                          // "0<->2: none", "1->3 only (not 3->1)"
};

// `group`: ranks (any order); p2p[a][b] != 0: a reaches b directly. The diagonal is not read.
P2pSplit split_by_p2p(std::vector<int> group, const std::vector<std::vector<int>>& p2p);

// Whether p2p has both a->b and b->a.
bool p2p_both_ways(const std::vector<std::vector<int>>& p2p, int a, int b);

}  // namespace arbench::islands
