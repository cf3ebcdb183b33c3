// Reading and writing the measured link matrices, and the slowest link an algorithm uses.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"
#include "io/input_file.hpp"
#include "topo/links.hpp"
#include "topo/topology.hpp"

namespace arbench::topo {

nlohmann::json link_matrix_to_json(const LinkMatrix& m) {
  nlohmann::json values = nlohmann::json::array();
  for (const auto& row : m.values) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& v : row) r.push_back(v ? nlohmann::json(*v) : nlohmann::json());
    values.push_back(r);
  }
  nlohmann::json j{{"method", m.method}, {"unit", m.unit}, {"bytes", m.bytes}, {"repetitions", m.repetitions},
                   {"values", values}};
  if (m.skipped) j["skipped"] = *m.skipped;
  if (!m.notes.empty()) j["notes"] = m.notes;
  return j;
}

LinkMatrix link_matrix_from_json(const nlohmann::json& j, std::size_t n, const std::string& where) {
  LinkMatrix m;
  m.method = j.value("method", "");
  m.unit = j.value("unit", "");
  m.bytes = j.value("bytes", std::uint64_t{0});
  m.repetitions = j.value("repetitions", 0);
  if (j.contains("skipped") && j["skipped"].is_string()) m.skipped = j["skipped"].get<std::string>();
  if (j.contains("notes")) m.notes = j["notes"].get<std::vector<std::string>>();
  const auto& values = j.at("values");
  if (!values.is_array() || (values.size() != n && !(values.empty() && m.skipped)))
    throw UsageError(where + ": 'values' must be a " + std::to_string(n) + "x" + std::to_string(n) +
                     " array (one row per bus id)");
  for (const auto& row : values) {
    if (!row.is_array() || row.size() != n)
      throw UsageError(where + ": every row of 'values' must hold " + std::to_string(n) + " entries");
    std::vector<std::optional<double>> r;
    for (const auto& v : row) {
      if (v.is_null()) r.emplace_back();
      else if (v.is_number()) r.emplace_back(v.get<double>());
      else throw UsageError(where + ": matrix entries must be numbers or null, got " + v.dump());
    }
    m.values.push_back(std::move(r));
  }
  return m;
}

nlohmann::json links_to_json(const Links& links) {
  nlohmann::json m = nlohmann::json::object();
  for (const auto& [name, matrix] : links.matrices) m[name] = link_matrix_to_json(matrix);
  return {{"schema", kLinksSchema}, {"bus_ids", links.bus_ids}, {"matrices", m}};
}

Links links_from_json(const nlohmann::json& in, const std::string& where) {
  const nlohmann::json& j = in.contains("links") ? in["links"] : in;
  if (!j.is_object() || j.value("schema", "") != kLinksSchema)
    throw UsageError(where + ": no links object with \"schema\": \"" + std::string(kLinksSchema) +
                     "\"; write one with `arbench topo --out FILE.json` on the machine you benchmark");
  try {
    Links links;
    links.bus_ids = j.at("bus_ids").get<std::vector<std::string>>();
    for (const auto& [name, m] : j.at("matrices").items())
      links.matrices[name] = link_matrix_from_json(m, links.bus_ids.size(), where + " matrix '" + name + "'");
    return links;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(where + ": malformed links object: " + e.what());
  }
}

Links read_links_file(const std::filesystem::path& file) {
  const std::string path = file.string();
  const std::string expected = "a links file written by `arbench topo --out FILE.json` on the machine you benchmark";
  const nlohmann::json j = read_json_input(path, expected);
  const bool topo = j.is_object() && j.value("schema", "").rfind("arbench-topo", 0) == 0;
  const nlohmann::json* links = j.is_object() && j.contains("links") ? &j["links"] : &j;
  if (!links->is_object() || links->value("schema", "") != kLinksSchema)
    throw UsageError(topo ? path + ": a topology file without link measurements (written with --no-measure, "
                                   "--sysfs-root or on several nodes); expected " + expected
                          : wrong_document(path, j, expected, "no links object with \"schema\": \"" +
                                                                  std::string(kLinksSchema) + "\""));
  return links_from_json(j, "links file " + path);
}

std::vector<int> link_indices_for_bus_ids(const Links& links, const std::vector<std::string>& bus_ids) {
  std::vector<int> out;
  for (const auto& id : bus_ids) {
    auto want = normalize_bus_id(id);
    int at = -1;
    for (std::size_t k = 0; want && k < links.bus_ids.size(); ++k)
      if (normalize_bus_id(links.bus_ids[k]) == want) at = static_cast<int>(k);
    out.push_back(at);
  }
  return out;
}

std::optional<double> slowest_link_gbps(const Links& links, std::span<const int> ranks, LinkPattern pattern,
                                        std::string_view matrix, std::string* why) {
  auto fail = [why](std::string reason) -> std::optional<double> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (ranks.size() < 2) return fail("fewer than 2 ranks: no link is used");
  auto it = links.matrices.find(matrix);
  if (it == links.matrices.end()) return fail("no matrix '" + std::string(matrix) + "' in the links file");
  const auto& values = it->second.values;
  if (it->second.skipped) return fail("matrix '" + std::string(matrix) + "' was skipped: " + *it->second.skipped);
  double slowest = std::numeric_limits<double>::infinity();
  auto use = [&](int a, int b) -> bool {
    if (a < 0 || b < 0 || a >= static_cast<int>(values.size()) || b >= static_cast<int>(values.size())) {
      fail("rank's device " + std::to_string(a < 0 || a >= static_cast<int>(values.size()) ? a : b) +
           " is not in the links file (" + std::to_string(values.size()) + " devices)");
      return false;
    }
    const auto& v = values[a][b];
    if (!v) {
      fail("link " + std::to_string(a) + "->" + std::to_string(b) + " was not measured");
      return false;
    }
    slowest = std::min(slowest, *v);
    return true;
  };
  const std::size_t n = ranks.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (pattern == LinkPattern::kRing) {
      if (!use(ranks[i], ranks[(i + 1) % n])) return std::nullopt;
    } else {
      for (std::size_t k = 0; k < n; ++k)
        if (k != i && !use(ranks[i], ranks[k])) return std::nullopt;
    }
  }
  return slowest;
}

std::string render_link_matrix(std::string_view name, const LinkMatrix& m, const std::vector<std::string>& labels) {
  std::ostringstream os;
  os << name << ": " << m.method;
  if (m.bytes) os << "; " << m.bytes << " bytes";
  if (m.repetitions) os << " x " << m.repetitions << " repetitions";
  os << "; " << m.unit << "; row = source, column = destination\n";
  if (m.skipped) {
    os << "  skipped: " << *m.skipped << "\n";
    if (m.values.empty()) return os.str();
  }
  std::size_t w = 9;
  for (const auto& l : labels) w = std::max(w, l.size() + 2);
  auto cell = [w](const std::string& s) { return std::string(w > s.size() ? w - s.size() : 1, ' ') + s; };
  os << std::string(w, ' ');
  for (const auto& l : labels) os << cell(l);
  os << "\n";
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    os << cell(i < labels.size() ? labels[i] : std::to_string(i));
    for (const auto& v : m.values[i]) {
      char buf[32];
      if (v) std::snprintf(buf, sizeof buf, "%.2f", *v);
      os << cell(v ? buf : "-");
    }
    os << "\n";
  }
  for (const auto& note : m.notes) os << "  note: " << note << "\n";
  return os.str();
}

std::optional<double> slowest_link_for_bus_ids(const Links& links, const std::vector<std::string>& bus_ids,
                                               LinkPattern pattern, std::string_view matrix, std::string* why) {
  std::vector<int> idx = link_indices_for_bus_ids(links, bus_ids);
  for (std::size_t r = 0; r < idx.size(); ++r)
    if (idx[r] < 0) {
      if (why) *why = "GPU " + bus_ids[r] + " is not in the links file (measured on other GPUs?)";
      return std::nullopt;
    }
  return slowest_link_gbps(links, idx, pattern, matrix, why);
}

LinkPattern link_pattern_for_variant(std::string_view variant) {
  // A configured name such as `nccl[ring/ll]` keeps its base name before '['; `nccl@2.29.2` (another
  // NCCL library) is `nccl`.
  const std::string name = split_library(variant).variant;
  const std::string_view base = std::string_view(name).substr(0, name.find('['));
  if (base == "ring" || base == "nccl" || base == "nccl-symm" || base == "unfused-nccl") return LinkPattern::kRing;
  return LinkPattern::kAllPairs;
}

std::optional<double> link_efficiency(double busbw_gbps, std::optional<double> slowest_gbps) {
  if (!slowest_gbps || !(*slowest_gbps > 0)) return std::nullopt;
  return busbw_gbps / *slowest_gbps;
}

}  // namespace arbench::topo
