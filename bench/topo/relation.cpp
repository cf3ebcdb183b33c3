// Relation codes (PIX, PXB, PHB, NODE, SYS) from PCIe paths, with the same meanings as
// `nvidia-smi topo -m`, so a user can check arbench against the tool they know.
#include <algorithm>
#include <sstream>

#include "topo/relation.hpp"

namespace arbench::topo {

std::string_view relation_code(Relation r) {
  switch (r) {
    case Relation::kSelf: return "X";
    case Relation::kPix: return "PIX";
    case Relation::kPxb: return "PXB";
    case Relation::kPhb: return "PHB";
    case Relation::kNode: return "NODE";
    case Relation::kSys: return "SYS";
  }
  return "?";
}

std::string_view relation_meaning(Relation r) {
  switch (r) {
    case Relation::kSelf: return "the GPU itself";
    case Relation::kPix: return "at most a single PCIe switch between the two GPUs";
    case Relation::kPxb: return "several PCIe bridges (nested switches), no host bridge";
    case Relation::kPhb: return "through a PCIe host bridge (same root complex, different root ports)";
    case Relation::kNode: return "between PCIe host bridges within one NUMA node (one CPU socket)";
    case Relation::kSys: return "across the SMP interconnect between NUMA nodes (e.g. UPI, Infinity Fabric)";
  }
  return "?";
}

std::vector<Relation> all_relations() {
  return {Relation::kSelf, Relation::kPix, Relation::kPxb, Relation::kPhb, Relation::kNode, Relation::kSys};
}

Relation relation_between(const GpuPath& a, const GpuPath& b) {
  if (a.host_bridge != b.host_bridge) {
    bool same_node = a.numa_node && b.numa_node && *a.numa_node == *b.numa_node;
    return same_node ? Relation::kNode : Relation::kSys;
  }
  auto [ia, ib] = std::mismatch(a.bridges.begin(), a.bridges.end(), b.bridges.begin(), b.bridges.end());
  auto common = ia - a.bridges.begin();
  if (common == 0) return Relation::kPhb;  // they meet only at the host bridge
  if (ia == a.bridges.end() && ib == b.bridges.end()) return Relation::kSelf;  // same path
  // Below their lowest common bridge each side has its own bridges; one downstream port
  // each means both hang off one switch.
  auto below_a = a.bridges.end() - ia, below_b = b.bridges.end() - ib;
  return below_a <= 1 && below_b <= 1 ? Relation::kPix : Relation::kPxb;
}

std::vector<std::vector<Relation>> relation_matrix(const Topology& topo, const std::vector<int>& gpus) {
  std::vector<std::vector<Relation>> m(gpus.size(), std::vector<Relation>(gpus.size(), Relation::kSelf));
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j)
      if (i != j) m[i][j] = relation_between(topo.gpus[gpus[i]].path, topo.gpus[gpus[j]].path);
  return m;
}

std::string relation_legend() {
  std::ostringstream os;
  os << "Legend:\n";
  for (Relation r : all_relations()) {
    std::string code(relation_code(r));
    os << "  " << code << std::string(6 - code.size(), ' ') << "= " << relation_meaning(r) << "\n";
  }
  os << "  (different host bridges and a NUMA node unknown on either side: shown as SYS, the conservative code)\n";
  return os.str();
}

std::string render_relation_matrix(const std::vector<std::vector<Relation>>& m,
                                   const std::vector<std::string>& labels) {
  std::size_t w = 5;
  for (const auto& l : labels) w = std::max(w, l.size() + 1);
  auto pad = [w](std::string_view s) { return std::string(s) + std::string(w - s.size(), ' '); };
  std::ostringstream os;
  os << pad("");
  for (const auto& l : labels) os << pad(l);
  os << "\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    os << pad(labels[i]);
    for (Relation r : m[i]) os << pad(relation_code(r));
    os << "\n";
  }
  std::string s = os.str();
  // Trailing pad spaces make golden-text comparisons brittle.
  std::string out;
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);) {
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace arbench::topo
