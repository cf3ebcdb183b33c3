#include "islands/cost_model.hpp"

#include <algorithm>

#include "arbench/algo/island/island_map.hpp"

namespace arbench::islands {
namespace {

struct NoFault {};  // cross_destinations' policy: the production mapping

struct Shape {
  int n = 1, m = 1, k_max = 1, k_min = 1, partners = 0;
  double cross_pairs = 0;  // max over directions g -> h of k_g * k_h
  double cross_ranks = 0;  // max over directions g -> h of k_h
};

Shape shape_of(const std::vector<int>& island_of) {
  Shape s;
  s.n = static_cast<int>(island_of.size());
  const algo::IslandMap map = algo::make_island_map(island_of, s.n);
  s.m = map.islands;
  s.k_max = 0;
  s.k_min = s.n;
  for (int g = 0; g < s.m; ++g) {
    s.k_max = std::max(s.k_max, algo::island_size(map, g));
    s.k_min = std::min(s.k_min, algo::island_size(map, g));
    for (int h = 0; h < s.m; ++h) {
      if (h == g) continue;
      s.cross_pairs = std::max(s.cross_pairs, double(algo::island_size(map, g)) * algo::island_size(map, h));
      s.cross_ranks = std::max(s.cross_ranks, double(algo::island_size(map, h)));
    }
  }
  for (int r = 0; r < s.n; ++r)
    s.partners = std::max(s.partners, algo::count_ranks(algo::cross_destinations<NoFault>(map, r)));
  return s;
}

double secs(double bytes, double gbps) { return bytes / (gbps * 1e9); }

}  // namespace

double Prediction::seconds() const {
  double t = 0;
  for (const Step& s : steps) t += s.seconds();
  return t;
}

const std::vector<std::string>& modelled_variants() {
  static const std::vector<std::string> v = {"oneshot-push", "oneshot-pull", "twoshot", "island-oneshot",
                                             "island-twoshot"};
  return v;
}

std::optional<Prediction> predict(std::string_view variant, const std::vector<int>& island_of, std::size_t bytes,
                                  const LinkCosts& l) {
  if (island_of.empty() || !algo::island_map_problem(island_of, static_cast<int>(island_of.size())).empty())
    return std::nullopt;
  const Shape s = shape_of(island_of);
  const bool crossing = s.m > 1;
  if (!(l.intra_latency_s > 0) || !(l.intra_gbps > 0)) return std::nullopt;
  if (crossing && (!(l.cross_latency_s > 0) || !(l.cross_gbps > 0))) return std::nullopt;
  const double M = static_cast<double>(bytes), N = s.n;
  const double ai = l.intra_latency_s, bi = l.intra_gbps;
  const double ax = crossing ? l.cross_latency_s : ai, bx = crossing ? l.cross_gbps : bi;
  // The larger of a GPU's own transfer and, when islands are crossed, the shared cross link's.
  auto load = [&](double gpu_bytes, double cross_bytes) {
    return std::max(secs(gpu_bytes, bi), crossing ? secs(cross_bytes, bx) : 0.0);
  };
  Prediction p;
  if (variant == "oneshot-push") {
    p.steps = {{"push (LL) to every peer", ax, load(2 * M * (N - 1), 2 * M * s.cross_pairs)}};
  } else if (variant == "oneshot-pull") {
    p.steps = {{"barrier", ax, 0}, {"read every peer", 2 * ax, load(M * (N - 1), M * s.cross_pairs)}};
  } else if (variant == "twoshot") {
    const Step reads{"", 2 * ax, load(M * (N - 1) / N, M * s.cross_pairs / N)};
    p.steps = {{"barrier", ax, 0}, {"reduce-scatter reads", reads.latency_s, reads.transfer_s},
               {"barrier", ax, 0}, {"all-gather reads", reads.latency_s, reads.transfer_s}};
  } else if (variant == "island-oneshot") {
    if (!crossing) return std::nullopt;
    p.steps = {{"push (LL) to island peers", ai, secs(2 * M * (s.k_max - 1), bi)},
               {"whole partial across (LL)", ax, load(2 * M * s.partners, 2 * M * s.cross_ranks)}};
  } else if (variant == "island-twoshot") {
    if (!crossing) return std::nullopt;
    const double in_island = M * (s.k_max - 1) / s.k_max;
    p.steps = {{"island barrier", ai, 0},
               {"reduce-scatter reads in the island", 2 * ai, secs(in_island, bi)},
               {"1/k shards across", ax, load((s.m - 1) * M / s.k_min, M)},
               {"island barrier", ai, 0},
               {"all-gather reads in the island", 2 * ai, secs(in_island, bi)}};
  } else {
    return std::nullopt;
  }
  return p;
}

}  // namespace arbench::islands
