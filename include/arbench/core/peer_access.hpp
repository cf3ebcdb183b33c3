// What the functional peer-to-peer check found (kernels/fabric/host/peer_check/peer_check.hpp runs it; the
// fabrics, `arbench run` and `arbench topo` report it). Value types and the message only.
//
// cudaDeviceCanAccessPeer and NVML can both say "P2P OK" on a box whose PCIe switches or root
// ports redirect peer traffic to the IOMMU (ACS), where peer writes then never arrive: a custom
// kernel's flag never flips, and every sample waits out --timeout. So every pair that reports
// P2P also moves a pattern through its peer mapping, both ways, under a short bound.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace arbench {

enum class PeerPath : unsigned char {
  self,    // the diagonal
  ok,      // reported, and the data moved both ways through the mapping
  broken,  // reported (CUDA / NCCL say P2P works), but the data did not arrive or came back wrong
  no_p2p,  // not reported: never tried (the custom kernels skip such a pair anyway)
};

inline const char* peer_path_name(PeerPath p) {
  switch (p) {
    case PeerPath::self: return "self";
    case PeerPath::ok: return "ok";
    case PeerPath::broken: return "reported-but-broken";
    case PeerPath::no_p2p: return "no-p2p";
  }
  return "?";
}

// Row rank reaching column rank through the row's mapping of the column's memory.
struct PeerLink {
  PeerPath path = PeerPath::no_p2p;
  double write_us = -1;  // a store and its read-back through the mapping (microseconds; < 0 unknown)
  double read_us = -1;   // one load through the mapping, its round trip (microseconds; < 0 unknown)
  std::string detail;    // what went wrong (broken only)
};

struct PeerAccess {
  int n = 0;
  std::vector<PeerLink> links;  // n x n, row-major: links[from * n + to]
  std::string method;           // how the memory was mapped ("NCCL symmetric windows", ...)
  double bound_s = 0;           // the bound on each wait of the check
  std::string unit = "GPU";     // what a row is, for messages ("GPU", "rank")

  PeerAccess() = default;
  PeerAccess(int ranks, std::string how, double bound, std::string what = "GPU")
      : n(ranks), links(std::size_t(ranks) * std::size_t(ranks)), method(std::move(how)), bound_s(bound),
        unit(std::move(what)) {
    for (int r = 0; r < n; ++r) at(r, r).path = PeerPath::self;
  }
  PeerLink& at(int from, int to) { return links.at(std::size_t(from) * std::size_t(n) + std::size_t(to)); }
  const PeerLink& at(int from, int to) const { return links.at(std::size_t(from) * std::size_t(n) + std::size_t(to)); }
  // Whether the check found `from` -> `to` reported but broken (false for pairs it did not cover).
  bool is_broken(int from, int to) const {
    return from != to && from >= 0 && to >= 0 && from < n && to < n && at(from, to).path == PeerPath::broken;
  }
  // Ordered pairs (from, to) among the first `ranks` whose data did not move.
  std::vector<std::pair<int, int>> broken(int ranks = -1) const {
    std::vector<std::pair<int, int>> out;
    const int m = ranks < 0 ? n : std::min(ranks, n);
    for (int a = 0; a < m; ++a)
      for (int b = 0; b < m; ++b)
        if (at(a, b).path == PeerPath::broken) out.emplace_back(a, b);
    return out;
  }
};

// A pair of ranks whose peer mapping is planted broken both ways, as on a box whose PCIe ports
// redirect peer traffic (ACS): the test seam ARBENCH_TEST_BROKEN_P2P=a,b (docs/developing.md).
// The fabrics' peer checks then see that pair's writes go elsewhere.
struct BrokenPair {
  int a = -1, b = -1;
  bool covers(int from, int to) const { return a >= 0 && ((from == a && to == b) || (from == b && to == a)); }
};

// Why peer-to-peer cannot be trusted among the first `ranks` ranks (all: -1): the broken pairs
// and what to check, for a skip reason, a banner and `arbench topo`. Empty when none is broken.
inline std::string broken_peer_reason(const PeerAccess& m, int ranks = -1) {
  const auto bad = m.broken(ranks);
  if (bad.empty()) return {};
  std::string pairs;
  for (std::size_t i = 0; i < bad.size() && i < 4; ++i) {
    const auto& [a, b] = bad[i];
    pairs += (i ? "; " : "") + m.unit + " " + std::to_string(a) + " -> " + m.unit + " " + std::to_string(b);
    if (!m.at(a, b).detail.empty()) pairs += " (" + m.at(a, b).detail + ")";
  }
  if (bad.size() > 4) pairs += "; and " + std::to_string(bad.size() - 4) + " more";
  return "peer-to-peer is reported but broken: " + pairs +
         ". Writes through the peer mapping did not arrive within the check's bound, as on boxes whose PCIe "
         "switches or root ports redirect peer traffic to the IOMMU. Check ACS (disable it on the switch ports: "
         "setpci, or the BIOS), the IOMMU (iommu=pt or off on the kernel command line), and `arbench topo`; "
         "NCCL would use the same path (NCCL_P2P_DISABLE=1 makes it go through host memory). See "
         "docs/troubleshooting.md";
}

}  // namespace arbench
