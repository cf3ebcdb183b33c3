#include "islands/link_costs.hpp"

#include <algorithm>

namespace arbench::islands {
namespace {

// Median of `m` over the ordered pairs (a, b), a != b, with same(a, b) == want; nullopt if none.
std::optional<double> median_over(const topo::LinkMatrix& m, const std::vector<int>& index,
                                  const std::vector<int>& island_of, bool same) {
  std::vector<double> v;
  for (std::size_t a = 0; a < index.size(); ++a)
    for (std::size_t b = 0; b < index.size(); ++b) {
      if (a == b || (island_of[a] == island_of[b]) != same || index[a] < 0 || index[b] < 0) continue;
      const auto ia = static_cast<std::size_t>(index[a]), ib = static_cast<std::size_t>(index[b]);
      if (ia < m.values.size() && ib < m.values[ia].size() && m.values[ia][ib]) v.push_back(*m.values[ia][ib]);
    }
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

std::optional<LinkCosts> link_costs(const topo::Links& links, const std::vector<int>& index,
                                    const std::vector<int>& island_of, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<LinkCosts> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (index.size() != island_of.size()) return fail("the links and the islands name different ranks");
  const auto lat = links.matrices.find(topo::kLatency);
  auto bw = links.matrices.find(topo::kPushUnidir);
  if (bw == links.matrices.end() || bw->second.values.empty()) bw = links.matrices.find(topo::kCeUnidir);
  if (lat == links.matrices.end() || lat->second.values.empty())
    return fail("no latency_us matrix (measure it with `arbench topo --out FILE`, give --links FILE)");
  if (bw == links.matrices.end() || bw->second.values.empty()) return fail("no bandwidth matrix");
  const bool crossing = std::any_of(island_of.begin(), island_of.end(), [&](int g) { return g != island_of.front(); });
  LinkCosts c;
  const auto li = median_over(lat->second, index, island_of, true), bi = median_over(bw->second, index, island_of, true);
  if (!li || !bi) return fail("no measured pair inside an island");
  c.intra_latency_s = *li * 1e-6;
  c.intra_gbps = *bi;
  if (crossing) {
    const auto lx = median_over(lat->second, index, island_of, false), bx = median_over(bw->second, index, island_of, false);
    if (!lx || !bx)
      return fail("no measured pair across islands (no P2P between them: the host-memory path is not modelled)");
    c.cross_latency_s = *lx * 1e-6;
    c.cross_gbps = *bx;
  }
  return c;
}

}  // namespace arbench::islands
