// Builds and draws the PCIe tree. Bridge roles follow from depth, as PCIe mandates: the
// first bridge below a host bridge is a root port; below it, switch upstream and downstream
// ports alternate (a switch = one upstream port + its downstream ports).
#include <sstream>

#include "topo/ring_order.hpp"
#include "topo/tree.hpp"

namespace arbench::topo {
namespace {

TreeNode& child(TreeNode& parent, TreeNode::Kind kind, const std::string& name) {
  for (auto& c : parent.children)
    if (c.kind == kind && c.name == name) return c;
  parent.children.push_back(TreeNode{kind, name, -1, {}});
  return parent.children.back();
}

std::string numa_name(const std::optional<int>& n) {
  if (!n) return "unknown";
  return std::to_string(*n);
}

std::string label_of(const std::vector<std::string>& labels, int gpu) {
  if (gpu < static_cast<int>(labels.size()) && !labels[gpu].empty()) return labels[gpu];
  std::string label = "GPU";
  return label += std::to_string(gpu);
}

std::string side(const LinkState& s) {
  // Appends instead of "Gen" + to_string(): GCC 12 warns falsely (-Wrestrict) on the latter.
  std::string out = "Gen";
  out += s.generation() ? std::to_string(*s.generation()) : "?";
  out += " x";
  out += s.width ? std::to_string(*s.width) : "?";
  return out;
}

void draw(const Topology& topo, const std::vector<std::string>& labels, const TreeNode& n, int depth,
          std::ostringstream& os) {
  std::string indent(static_cast<std::size_t>(2 * depth), ' ');
  using K = TreeNode::Kind;
  switch (n.kind) {
    case K::kRoot: break;
    case K::kNumaNode:
      os << indent << "NUMA node " << (n.name == "-1" ? "-1 (no NUMA affinity reported)" : n.name) << "\n";
      break;
    case K::kHostBridge: os << indent << n.name << "  host bridge (root complex)\n"; break;
    case K::kGpu: {
      const GpuInfo& g = topo.gpus[n.gpu];
      os << indent << g.bus_id << "  " << label_of(labels, n.gpu) << "  10de:"
         << (g.device_id ? g.device_id->substr(g.device_id->rfind('x') + 1) : "unknown") << "  link "
         << format_link(g.link) << "  NUMA " << numa_name(g.path.numa_node) << "\n";
      break;
    }
    default: {
      auto it = topo.bridges.find(n.name);
      os << indent << n.name << "  " << tree_kind_name(n.kind) << "  link "
         << (it == topo.bridges.end() ? "unknown" : format_link(it->second.link)) << "\n";
    }
  }
  for (const auto& c : n.children) draw(topo, labels, c, n.kind == K::kRoot ? 0 : depth + 1, os);
}

nlohmann::json node_json(const Topology& topo, const std::vector<std::string>& labels, const TreeNode& n) {
  nlohmann::json j;
  j["kind"] = tree_kind_name(n.kind);
  j["name"] = n.name;
  if (n.kind == TreeNode::Kind::kGpu) {
    j["gpu"] = n.gpu;
    j["label"] = label_of(labels, n.gpu);
    j["link"] = link_to_json(topo.gpus[n.gpu].link);
  } else if (auto it = topo.bridges.find(n.name); it != topo.bridges.end()) {
    j["link"] = link_to_json(it->second.link);
  }
  if (!n.children.empty()) {
    j["children"] = nlohmann::json::array();
    for (const auto& c : n.children) j["children"].push_back(node_json(topo, labels, c));
  }
  return j;
}

}  // namespace

const char* tree_kind_name(TreeNode::Kind k) {
  switch (k) {
    case TreeNode::Kind::kRoot: return "root";
    case TreeNode::Kind::kNumaNode: return "numa_node";
    case TreeNode::Kind::kHostBridge: return "host_bridge";
    case TreeNode::Kind::kRootPort: return "root_port";
    case TreeNode::Kind::kSwitchUpstream: return "switch_upstream_port";
    case TreeNode::Kind::kSwitchDownstream: return "switch_downstream_port";
    case TreeNode::Kind::kGpu: return "gpu";
  }
  return "?";
}

TreeNode build_tree(const Topology& topo) {
  TreeNode root;
  for (int g : ring_order(topo)) {
    const GpuPath& p = topo.gpus[g].path;
    TreeNode* at = &child(root, TreeNode::Kind::kNumaNode, numa_name(p.numa_node));
    at = &child(*at, TreeNode::Kind::kHostBridge, p.host_bridge);
    for (std::size_t k = 0; k < p.bridges.size(); ++k) {
      auto kind = k == 0       ? TreeNode::Kind::kRootPort
                  : k % 2 == 1 ? TreeNode::Kind::kSwitchUpstream
                               : TreeNode::Kind::kSwitchDownstream;
      at = &child(*at, kind, p.bridges[k]);
    }
    at->children.push_back(TreeNode{TreeNode::Kind::kGpu, topo.gpus[g].bus_id, g, {}});
  }
  return root;
}

nlohmann::json link_to_json(const PcieLink& l) {
  auto one = [](const LinkState& s) {
    auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    return nlohmann::json{
        {"speed_gts", opt(s.speed_gts)}, {"generation", opt(s.generation())}, {"width", opt(s.width)}};
  };
  return {{"current", one(l.current)}, {"max", one(l.max)}};
}

std::string format_link(const PcieLink& link) {
  const LinkState &c = link.current, &m = link.max;
  if (!c.speed_gts && !c.width && !m.speed_gts && !m.width) return "unknown";
  return side(c) + " (max " + side(m) + ")";
}

std::string render_tree(const Topology& topo, const std::vector<std::string>& labels) {
  std::ostringstream os;
  draw(topo, labels, build_tree(topo), 0, os);
  return os.str();
}

nlohmann::json tree_to_json(const Topology& topo, const std::vector<std::string>& labels) {
  nlohmann::json j = node_json(topo, labels, build_tree(topo));
  return j.contains("children") ? j["children"] : nlohmann::json::array();
}

}  // namespace arbench::topo
