// Text and JSON for the sysfs half of `arbench topo`.
#include <algorithm>
#include <cstdio>
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
  // The path on a line of its own: its length is the reader's, the 120 columns are ours.
  os << "PCIe topology from " << (std::filesystem::path(topo.sysfs_root) / "sys").string() << "\n"
     << topo.gpus.size() << " NVIDIA GPU(s) placed, " << topo.unplaced.size() << " not placed\n";
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

std::string render_peer_access(const PeerAccess& m, const std::vector<std::string>& labels) {
  std::size_t w = 13;
  for (const auto& l : labels) w = std::max(w, l.size() + 1);
  auto pad = [w](const std::string& s) { return s + std::string(w > s.size() ? w - s.size() : 1, ' '); };
  auto us = [](double v) {
    if (v < 0) return std::string("?");
    char b[16];
    std::snprintf(b, sizeof b, "%.1f", v);
    return std::string(b);
  };
  std::ostringstream os;
  os << "Functional peer-to-peer check (" << m.method << "; a pattern written and read through each mapping, "
     << "bound " << int(m.bound_s * 1000 + 0.5) << " ms; row reaches column):\n"
     << pad("");
  for (int j = 0; j < m.n; ++j) os << pad(j < int(labels.size()) ? labels[std::size_t(j)] : std::to_string(j));
  os << "\n";
  for (int i = 0; i < m.n; ++i) {
    os << pad(i < int(labels.size()) ? labels[std::size_t(i)] : std::to_string(i));
    for (int j = 0; j < m.n; ++j) {
      const PeerLink& l = m.at(i, j);
      switch (l.path) {
        case PeerPath::self: os << pad("X"); break;
        case PeerPath::ok: os << pad("ok " + us(l.write_us) + "/" + us(l.read_us)); break;
        case PeerPath::broken: os << pad("BROKEN"); break;
        case PeerPath::no_p2p: os << pad("no P2P"); break;
      }
    }
    os << "\n";
  }
  os << "Legend: ok W/R = write (a store and its read-back through the mapping) / read (one load) latency, us;\n"
        "        BROKEN = reported capable, but the data did not arrive (reported-but-broken); no P2P = not reported,\n"
        "        not tried\n";
  for (const auto& [a, b] : m.broken())
    os << "  " << (a < int(labels.size()) ? labels[std::size_t(a)] : std::to_string(a)) << " -> "
       << (b < int(labels.size()) ? labels[std::size_t(b)] : std::to_string(b)) << ": " << m.at(a, b).detail << "\n";
  if (const std::string why = broken_peer_reason(m); !why.empty()) os << why << "\n";
  return os.str();
}

nlohmann::json peer_access_to_json(const PeerAccess& m) {
  nlohmann::json status = nlohmann::json::array(), write = nlohmann::json::array(), read = nlohmann::json::array(),
                 detail = nlohmann::json::array();
  for (int i = 0; i < m.n; ++i) {
    nlohmann::json s = nlohmann::json::array(), wr = nlohmann::json::array(), rd = nlohmann::json::array(),
                   dt = nlohmann::json::array();
    for (int j = 0; j < m.n; ++j) {
      const PeerLink& l = m.at(i, j);
      s.push_back(peer_path_name(l.path));
      wr.push_back(l.write_us >= 0 ? nlohmann::json(l.write_us) : nlohmann::json());
      rd.push_back(l.read_us >= 0 ? nlohmann::json(l.read_us) : nlohmann::json());
      dt.push_back(l.detail);
    }
    status.push_back(s);
    write.push_back(wr);
    read.push_back(rd);
    detail.push_back(dt);
  }
  return {{"method", m.method}, {"bound_s", m.bound_s}, {"status", status}, {"write_us", write},
          {"read_us", read},    {"detail", detail},     {"broken", broken_peer_reason(m)}};
}

}  // namespace arbench::topo
