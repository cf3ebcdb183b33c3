// Ring order: which rank follows which in the native ring.
//
// order[i] is the rank at ring position i; rank order[i] sends to order[i+1] and receives from
// order[i-1] (mod N). Default: on the cuda backend `arbench run` passes the order that follows
// the PCIe tree (bench/run/run_links.cpp); otherwise the GPU variant sorts the ranks by their GPUs'
// PCI bus id (kernels/ring/ring.cu) and the twin uses 0..N-1. --ring-order overrides it; it must
// name every rank exactly once.
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbench::algo {

inline std::string ring_order_text(const std::vector<int>& order) {
  std::string s;
  for (int r : order) s += (s.empty() ? "" : ",") + std::to_string(r);
  return s;
}

// The inverse of ring_order_text: "0,2,3,1" → {0, 2, 3, 1}; nullopt unless it is non-empty
// integers separated by single commas (whether it is a permutation is ring_order_problem's call).
inline std::optional<std::vector<int>> parse_ring_order_text(std::string_view text) {
  std::vector<int> order;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (true) {
    int rank = 0;
    const auto [next, ec] = std::from_chars(p, end, rank);
    if (ec != std::errc()) return std::nullopt;
    order.push_back(rank);
    if (next == end) return order;
    if (*next != ',') return std::nullopt;
    p = next + 1;
  }
}

// Empty when `order` is a permutation of 0..world-1; else a sentence saying what is wrong.
inline std::string ring_order_problem(const std::vector<int>& order, int world) {
  auto text = [&] { return ring_order_text(order); };
  if (static_cast<int>(order.size()) != world)
    return "--ring-order " + text() + " names " + std::to_string(order.size()) + " ranks, but the case has " +
           std::to_string(world) + "; give a permutation of 0.." + std::to_string(world - 1) +
           " (or run one world size per --ring-order)";
  std::vector<bool> seen(static_cast<std::size_t>(world), false);
  for (int r : order) {
    if (r < 0 || r >= world)
      return "--ring-order " + text() + ": rank " + std::to_string(r) + " is outside 0.." + std::to_string(world - 1);
    if (seen[static_cast<std::size_t>(r)])
      return "--ring-order " + text() + ": rank " + std::to_string(r) + " appears twice; each rank must appear once";
    seen[static_cast<std::size_t>(r)] = true;
  }
  return {};
}

// The order to use: `asked` when given (validated by the caller), else 0..world-1.
inline std::vector<int> ring_order_or_default(const std::vector<int>& asked, int world) {
  if (!asked.empty()) return asked;
  std::vector<int> order(static_cast<std::size_t>(world));
  for (int i = 0; i < world; ++i) order[static_cast<std::size_t>(i)] = i;
  return order;
}

// A rank's place in the ring and its two neighbours.
struct RingNeighbours {
  int pos = 0;
  int prev = 0;  // sends to us
  int next = 0;  // we send to it
};

inline RingNeighbours ring_neighbours(const std::vector<int>& order, int rank) {
  const int n = static_cast<int>(order.size());
  RingNeighbours nb;
  for (int i = 0; i < n; ++i)
    if (order[static_cast<std::size_t>(i)] == rank) nb.pos = i;
  nb.prev = order[static_cast<std::size_t>((nb.pos + n - 1) % n)];
  nb.next = order[static_cast<std::size_t>((nb.pos + 1) % n)];
  return nb;
}

}  // namespace arbench::algo
