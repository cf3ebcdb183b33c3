#include "islands/p2p_split.hpp"

#include <algorithm>

namespace arbench::islands {
namespace {

bool reaches(const std::vector<std::vector<int>>& p2p, int a, int b) {
  const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
  return ua < p2p.size() && ub < p2p[ua].size() && p2p[ua][ub] != 0;
}

}  // namespace

bool p2p_both_ways(const std::vector<std::vector<int>>& p2p, int a, int b) {
  return reaches(p2p, a, b) && reaches(p2p, b, a);
}

P2pSplit split_by_p2p(std::vector<int> group, const std::vector<std::vector<int>>& p2p) {
  std::sort(group.begin(), group.end());
  P2pSplit out;
  for (std::size_t i = 0; i < group.size(); ++i)
    for (std::size_t j = i + 1; j < group.size(); ++j) {
      const int a = group[i], b = group[j];
      const bool ab = reaches(p2p, a, b), ba = reaches(p2p, b, a);
      const std::string sa = std::to_string(a), sb = std::to_string(b);
      if (!ab && !ba)
        out.missing.push_back(sa + "<->" + sb + ": none");
      else if (!ab || !ba)
        out.missing.push_back((ab ? sa + "->" + sb : sb + "->" + sa) + " only (not " + (ab ? sb + "->" + sa : sa + "->" + sb) + ")");
    }
  std::vector<int> left = group;
  while (!left.empty()) {
    std::vector<int> island{left.front()}, rest;
    for (std::size_t k = 1; k < left.size(); ++k) {
      const int r = left[k];
      const bool fits = std::all_of(island.begin(), island.end(), [&](int m) { return p2p_both_ways(p2p, m, r); });
      (fits ? island : rest).push_back(r);
    }
    out.islands.push_back(island);
    left = rest;
  }
  return out;
}

}  // namespace arbench::islands
