// `--islands`: the islands as a user types them, checked before any work.
//
// Grammar: islands separated by ',', an island's ranks as runs `a-b` (or one rank `a`) joined
// by '+': `0-3,4-7` (two switches of four), `0-2,3-7` (3 + 5), `0+2,1+3` (interleaved). Every
// rank 0..M-1 must appear exactly once (M: the ranks listed); a world of w ranks uses the
// islands of its ranks 0..w-1, so M must cover the largest world size swept.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace arbench::islands {

// The island label of every rank 0..M-1 (labels 0.. in the order typed). Throws UsageError
// (exit 2) naming the text, what is wrong and an example.
std::vector<int> parse_islands(const std::string& text);

// Throws UsageError when `island_of` (from --islands) does not cover `world` ranks.
void check_covers(const std::vector<int>& island_of, int world, const std::string& text);

// The islands of ranks 0..world-1 (world <= island_of.size()).
std::vector<int> islands_of_world(const std::vector<int>& island_of, int world);

// Per world size: two halves, 0..w/2-1 and w/2..w-1 (the host and single-gpu backends' islands:
// no PCIe tree to follow, so the island variants run on a split that exercises them).
std::map<int, std::vector<int>> halves(const std::vector<int>& worlds);

}  // namespace arbench::islands
