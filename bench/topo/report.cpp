// Text and JSON for the sysfs half of `arbench topo`.
#include <filesystem>
#include <sstream>

#include "topo/relation.hpp"
#include "topo/report.hpp"
#include "topo/ring_order.hpp"
#include "topo/tree.hpp"
#include "text/wrap.hpp"

namespace arbench::topo {
namespace {

Selection resolve(const Topology& topo, const Selection& sel) {
  if (sel.gpus.empty()) return default_selection(topo);
  Selection s = sel;
  for (std::size_t i = s.labels.size(); i < s.gpus.size(); ++i) s.labels.push_back("GPU" + std::to_string(s.gpus[i]));
  return s;
}

// Labels indexed by topology GPU; GPUs outside the selection keep a bus-order name.
std::vector<std::string> tree_labels(const Topology& topo, const Selection& s) {
  std::vector<std::string> labels(topo.gpus.size());
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = "(not selected)";
  for (std::size_t k = 0; k < s.gpus.size(); ++k) labels[s.gpus[k]] = s.labels[k];
  return labels;
}

std::string opt_int(const std::optional<int>& v) { return v ? std::to_string(*v) : "unknown"; }

template <class T>
nlohmann::json opt_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

struct Ring {
  std::vector<int> positions;  // into the selection
  RingCost cost{};
};

Ring selection_ring(const Topology& topo, const Selection& s) {
  std::vector<GpuPath> paths;
  for (int g : s.gpus) paths.push_back(topo.gpus[g].path);
  Ring r;
  r.positions = ring_order(paths);
  r.cost = ring_cost(paths, r.positions);
  return r;
}

std::string edges_text(const RingCost& c) {
  std::ostringstream os;
  os << "ring edges:";
  for (Relation rel : all_relations())
    if (rel != Relation::kSelf) os << " " << c[static_cast<int>(rel)] << " " << relation_code(rel);
  return os.str();
}

}  // namespace

Selection selection_for_bus_ids(const Topology& topo, const std::vector<std::string>& bus_ids,
                                const std::string& prefix) {
  Selection s;
  for (std::size_t i = 0; i < bus_ids.size(); ++i) {
    int g = topo.find_gpu(bus_ids[i]);
    if (g < 0) continue;
    s.gpus.push_back(g);
    s.labels.push_back(prefix + std::to_string(i));
  }
  return s;
}

Selection default_selection(const Topology& topo) {
  Selection s;
  for (std::size_t i = 0; i < topo.gpus.size(); ++i) {
    s.gpus.push_back(static_cast<int>(i));
    s.labels.push_back("GPU" + std::to_string(i));
  }
  return s;
}

std::string render_topology(const Topology& topo, const Selection& sel) {
  Selection s = resolve(topo, sel);
  std::ostringstream os;
  os << "PCIe topology from " << (std::filesystem::path(topo.sysfs_root) / "sys").string() << ": " << topo.gpus.size()
     << " NVIDIA GPU(s) placed, " << topo.unplaced.size() << " not placed\n";
  if (!s.gpus.empty() || !topo.unplaced.empty()) os << "\n";
  for (std::size_t k = 0; k < s.gpus.size(); ++k) {
    const GpuInfo& g = topo.gpus[s.gpus[k]];
    os << "  " << s.labels[k] << "  " << g.bus_id << "  NUMA " << opt_int(g.path.numa_node) << "  link "
       << format_link(g.link) << "\n";
  }
  for (const auto& u : topo.unplaced) os << fit_line("  " + u.bus_id + "  not placed: " + u.reason, 16);
  if (topo.gpus.empty()) {
    os << "\nNo NVIDIA GPU with a PCIe path was found.\n";
  } else {
    os << "\nPCIe tree:\n" << render_tree(topo, tree_labels(topo, s));
    os << "\nRelation matrix:\n" << render_relation_matrix(relation_matrix(topo, s.gpus), s.labels);
    os << relation_legend();
    Ring r = selection_ring(topo, s);
    os << "\nTopology-aware ring order:";
    for (int p : r.positions) os << " " << s.labels[p];
    os << "\n  (" << edges_text(r.cost) << ")\n";
  }
  if (!topo.warnings.empty()) {
    os << "\nWarnings:\n";
    for (const auto& w : topo.warnings) os << "  " << w << "\n";
  }
  return os.str();
}

nlohmann::json topology_to_json(const Topology& topo, const Selection& sel) {
  Selection s = resolve(topo, sel);
  nlohmann::json j;
  j["sysfs_root"] = topo.sysfs_root;
  j["gpus"] = nlohmann::json::array();
  for (std::size_t k = 0; k < s.gpus.size(); ++k) {
    const GpuInfo& g = topo.gpus[s.gpus[k]];
    j["gpus"].push_back({{"label", s.labels[k]},
                         {"bus_id", g.bus_id},
                         {"device_id", opt_json(g.device_id)},
                         {"class", opt_json(g.class_code)},
                         {"numa_node", opt_json(g.path.numa_node)},
                         {"host_bridge", g.path.host_bridge},
                         {"bridges", g.path.bridges},
                         {"link", link_to_json(g.link)}});
  }
  j["unplaced"] = nlohmann::json::array();
  for (const auto& u : topo.unplaced) j["unplaced"].push_back({{"bus_id", u.bus_id}, {"reason", u.reason}});
  j["tree"] = tree_to_json(topo, tree_labels(topo, s));
  nlohmann::json matrix = nlohmann::json::array();
  for (const auto& row : relation_matrix(topo, s.gpus)) {
    nlohmann::json r = nlohmann::json::array();
    for (Relation rel : row) r.push_back(std::string(relation_code(rel)));
    matrix.push_back(r);
  }
  nlohmann::json legend;
  for (Relation rel : all_relations()) legend[std::string(relation_code(rel))] = std::string(relation_meaning(rel));
  j["relations"] = {{"labels", s.labels}, {"matrix", matrix}, {"legend", legend}};
  Ring r = selection_ring(topo, s);
  nlohmann::json labels = nlohmann::json::array(), counts;
  for (int p : r.positions) labels.push_back(s.labels[p]);
  for (Relation rel : all_relations())
    if (rel != Relation::kSelf) counts[std::string(relation_code(rel))] = r.cost[static_cast<int>(rel)];
  j["ring_order"] = {{"positions", r.positions}, {"labels", labels}, {"edges_by_relation", counts}};
  j["warnings"] = topo.warnings;
  return j;
}

nlohmann::json topology_provenance(const std::vector<std::string>& bus_ids, const std::filesystem::path& sysfs_root) {
  Topology t = read_sysfs_topology(sysfs_root);
  Selection s = selection_for_bus_ids(t, bus_ids, "rank:");
  // An empty selection would mean "every GPU"; a run whose GPUs sysfs cannot place gets a note.
  nlohmann::json topo = s.gpus.empty() && !bus_ids.empty()
                            ? nlohmann::json{{"sysfs_root", t.sysfs_root}, {"warnings", t.warnings},
                                             {"note", "no rank's GPU found in sysfs"}}
                            : topology_to_json(t, s);
  return {{"topology", topo}, {"ring_order", ring_order_for_bus_ids(t, bus_ids)}};
}

}  // namespace arbench::topo
