// Mann-Whitney U: midranks over the pooled samples, then either the exact null distribution of U
// (counted by recursion over the last-placed element) or the normal approximation
//   mu = n_a n_b / 2,  sigma^2 = n_a n_b / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))),
//   z = (|U - mu| - 1/2) / sigma,  p = erfc(z / sqrt 2)   (two-sided).
#include "analysis/verdict/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace arbench {
namespace {

// Number of arrangements of n_a a's and n_b b's with each U value, as probabilities.
// count(m, n, u) = count(m - 1, n, u - n) + count(m, n - 1, u): the largest element is either
// an a (beating all n b's) or a b (adding nothing to U).
std::vector<double> exact_u_distribution(std::size_t n_a, std::size_t n_b) {
  const std::size_t max_u = n_a * n_b;
  // table[m][n] is a vector over u; only rows m-1 and m are needed at a time.
  std::vector<std::vector<double>> prev(n_b + 1), cur(n_b + 1);
  for (std::size_t n = 0; n <= n_b; ++n) prev[n] = {1.0};  // m = 0: U = 0 in one way
  for (std::size_t m = 1; m <= n_a; ++m) {
    cur[0] = {1.0};  // n = 0: U = 0 in one way
    for (std::size_t n = 1; n <= n_b; ++n) {
      std::vector<double> row(m * n + 1, 0.0);
      for (std::size_t u = 0; u < prev[n].size(); ++u) row[u + n] += prev[n][u];
      for (std::size_t u = 0; u < cur[n - 1].size(); ++u) row[u] += cur[n - 1][u];
      cur[n] = std::move(row);
    }
    std::swap(prev, cur);
  }
  std::vector<double> dist = prev[n_b];
  dist.resize(max_u + 1, 0.0);
  const double total = std::accumulate(dist.begin(), dist.end(), 0.0);
  for (double& d : dist) d /= total;
  return dist;
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  MannWhitneyResult r;
  const std::size_t n_a = a.size(), n_b = b.size(), n = n_a + n_b;
  if (n_a == 0 || n_b == 0) return r;

  // Pool, sort, assign midranks; collect tie-group sizes for the variance correction.
  struct Item { double v; bool from_a; };
  std::vector<Item> pooled;
  pooled.reserve(n);
  for (double v : a) pooled.push_back({v, true});
  for (double v : b) pooled.push_back({v, false});
  std::sort(pooled.begin(), pooled.end(), [](const Item& x, const Item& y) { return x.v < y.v; });
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && pooled[j].v == pooled[i].v) ++j;
    const double t = double(j - i);
    const double midrank = (double(i + 1) + double(j)) / 2.0;  // ranks are 1-based
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].from_a) rank_sum_a += midrank;
    if (j - i > 1) {
      r.has_ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double na = double(n_a), nb = double(n_b), nn = double(n);
  r.u_a = rank_sum_a - na * (na + 1) / 2;
  r.u_b = na * nb - r.u_a;

  if (!r.has_ties && n_a <= kMannWhitneyExactMax && n_b <= kMannWhitneyExactMax) {
    const std::vector<double> dist = exact_u_distribution(n_a, n_b);
    const auto u_min = static_cast<std::size_t>(std::min(r.u_a, r.u_b));
    double tail = 0;
    for (std::size_t u = 0; u <= u_min; ++u) tail += dist[u];
    r.exact = true;
    r.p_value = std::min(1.0, 2 * tail);
    return r;
  }

  const double mu = na * nb / 2;
  const double var = na * nb / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (var <= 0) return r;  // every value tied: no evidence of a difference
  r.z = std::max(0.0, std::abs(r.u_a - mu) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(r.z / std::sqrt(2.0)));
  return r;
}

}  // namespace arbench
