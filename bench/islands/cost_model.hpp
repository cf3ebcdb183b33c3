// The alpha-beta model of the flat and island all-reduce variants: the expected time of one op
// per size, from the latency and bandwidth of a link inside an island and of one across
// (link_costs.hpp, from `arbench topo`'s measurements), reported beside the measurement
// (docs/variants.md, "The model"), so a user sees whether the box behaves as its topology says.
//
// Per step: time = latency of the slowest link the step uses + the largest transfer time over
// the resources it loads: each GPU's own link (its bytes in or out / intra bandwidth) and, per
// direction, the link between two islands, which all rank pairs of that direction share (bytes
// of every pair / cross bandwidth). A one-way flag or posted write costs one latency, a read a
// round trip (two). LL protocols move 2 bytes per data byte. Compute is free. M bytes, N ranks,
// islands of k_g ranks (k_max the largest, k_min the smallest, m of them):
//   oneshot-push    push (LL) to every peer                 a_x + max(2M(N-1)/b_i, 2M k_g k_h/b_x)
//   oneshot-pull    barrier; read every peer                a_x; 2a_x + max(M(N-1)/b_i, M k_g k_h/b_x)
//   twoshot         barrier; reduce-scatter reads;          a_x; 2a_x + max(M(N-1)/(N b_i), M k_g k_h/(N b_x));
//                   barrier; all-gather reads               the same again
//   island-oneshot  push (LL) to island peers;              a_i + 2M(k_max-1)/b_i;
//                   the whole partial across (LL)           a_x + max(2M d/b_i, 2M k_h/b_x)   (d: partners per rank)
//   island-twoshot  island barrier; reduce-scatter reads;   a_i; 2a_i + M(k_max-1)/(k_max b_i);
//                   shards across (1/k each);               a_x + max((m-1)M/(k_min b_i), M/b_x);
//                   island barrier; all-gather reads        a_i; 2a_i + M(k_max-1)/(k_max b_i)
// With one island (no cross pairs) every a_x is a_i and the cross terms vanish.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbench::islands {

struct LinkCosts {
  double intra_latency_s = 0;  // one-way, a link inside an island
  double intra_gbps = 0;       // GB/s (1e9 bytes/s), one GPU's link
  double cross_latency_s = 0;  // one-way, across islands
  double cross_gbps = 0;       // GB/s per direction, shared by every rank pair of that direction
};

struct Step {
  std::string what;
  double latency_s = 0;   // the latencies the step pays
  double transfer_s = 0;  // its largest transfer time
  double seconds() const { return latency_s + transfer_s; }
};

struct Prediction {
  std::vector<Step> steps;
  double seconds() const;
};

// The variants the model knows (the all-reduce ones; fused forms are not modelled).
const std::vector<std::string>& modelled_variants();

// The model of `variant` for `bytes` on ranks whose islands are island_of; nullopt when the
// variant is not modelled or a link cost it needs is not positive.
std::optional<Prediction> predict(std::string_view variant, const std::vector<int>& island_of, std::size_t bytes,
                                  const LinkCosts& links);

}  // namespace arbench::islands
