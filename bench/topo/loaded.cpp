// Loaded links: arithmetic, text and JSON; see loaded.hpp.
#include "topo/loaded.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "arbench/core/errors.hpp"

namespace arbench::topo {
namespace {

using Cells = std::vector<std::vector<std::optional<double>>>;

std::string fixed(std::optional<double> v, int decimals) {
  if (!v) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
  return buf;
}

std::string link_name(int from, int to, const std::vector<std::string>& labels) {
  auto name = [&](int i) { return i >= 0 && i < static_cast<int>(labels.size()) ? labels[i] : std::to_string(i); };
  return name(from) + "->" + name(to);
}

// Columns padded to their widest cell, two spaces apart; the first `left` columns left-aligned.
std::string table(const std::vector<std::vector<std::string>>& rows, std::size_t left) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (w.size() <= c) w.push_back(0);
      w[c] = std::max(w[c], r[c].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < r.size(); ++c) {
      const std::string pad(w[c] - r[c].size(), ' ');
      line += "  " + (c < left ? r[c] + pad : pad + r[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

const LinkMatrix* find_matrix(const Links& idle, std::string_view name) {
  auto it = idle.matrices.find(name);
  return it == idle.matrices.end() || it->second.skipped ? nullptr : &it->second;
}

std::optional<double> cell(const LinkMatrix* m, std::size_t i, std::size_t j) {
  if (!m || i >= m->values.size() || j >= m->values[i].size()) return std::nullopt;
  return m->values[i][j];
}

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

template <class T>
nlohmann::json opt_json(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

std::string what(const LoadedPattern& p) {
  const bool ce = p.name.rfind("ce_", 0) == 0;
  return std::string(ce ? "copy engines" : "SM kernel") + ", every GPU " + (p.pull ? "reads from" : "writes to") +
         " every peer";
}

}  // namespace

LoadedPattern loaded_pattern(std::string_view name, std::string method, std::string_view idle_matrix, bool pull,
                             std::uint64_t bytes, int repetitions, const LoadedTimes& t) {
  LoadedPattern p;
  p.name = std::string(name);
  p.method = std::move(method);
  p.idle_matrix = std::string(idle_matrix);
  p.pull = pull;
  const std::size_t n = t.gpu_ms.size();
  p.links.method = p.method;
  p.links.unit = "GB/s";
  p.links.bytes = bytes;
  p.links.repetitions = repetitions;
  p.links.notes = t.notes;
  p.gpu_gbps.assign(n, std::nullopt);
  if (t.skipped) {
    p.links.skipped = t.skipped;
    return p;
  }
  const double moved = static_cast<double>(bytes) * repetitions;  // per link
  p.links.values.assign(n, std::vector<std::optional<double>>(n));
  double total_bytes = 0, slowest_ms = 0;
  for (std::size_t g = 0; g < n; ++g) {
    int links = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t from = pull ? k : g, to = pull ? g : k;  // GPU g's own links
      if (from == to || from >= t.link_ms.size() || to >= t.link_ms[from].size()) continue;
      const auto& ms = t.link_ms[from][to];
      if (!ms || !(*ms > 0)) continue;
      p.links.values[from][to] = moved / (*ms * 1e-3) / 1e9;
      ++links;
    }
    if (links && t.gpu_ms[g] && *t.gpu_ms[g] > 0) {
      p.gpu_gbps[g] = links * moved / (*t.gpu_ms[g] * 1e-3) / 1e9;
      total_bytes += links * moved;
      slowest_ms = std::max(slowest_ms, *t.gpu_ms[g]);
    }
  }
  if (slowest_ms > 0) p.aggregate_gbps = total_bytes / (slowest_ms * 1e-3) / 1e9;
  return p;
}

LoadedSummary summarize_loaded(const LoadedPattern& p, const Links& idle) {
  LoadedSummary s;
  s.pattern = p.name;
  s.aggregate_gbps = p.aggregate_gbps;
  for (const auto& g : p.gpu_gbps)
    if (g) {
      s.min_gpu_gbps = std::min(s.min_gpu_gbps.value_or(*g), *g);
      s.max_gpu_gbps = std::max(s.max_gpu_gbps.value_or(*g), *g);
    }
  const LinkMatrix* base = find_matrix(idle, p.idle_matrix);
  double ideal = 0;
  int idle_links = 0;
  const std::size_t n = p.links.values.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const auto& v = p.links.values[i][j];
      if (i == j || !v) continue;
      ++s.links;
      if (!s.worst_gbps || *v < *s.worst_gbps) {
        s.worst_gbps = *v;
        s.worst_from = static_cast<int>(i);
        s.worst_to = static_cast<int>(j);
      }
      if (auto b = cell(base, i, j)) {
        ideal += *b;
        ++idle_links;
      }
    }
  if (s.worst_gbps) s.worst_idle_gbps = cell(base, std::size_t(s.worst_from), std::size_t(s.worst_to));
  if (!base) s.why = "no idle matrix '" + p.idle_matrix + "' to compare with";
  else if (!s.links) s.why = "no link was measured under load";
  else if (idle_links != s.links) s.why = "the idle matrix lacks some of the links measured under load";
  else if (!p.aggregate_gbps) s.why = "no aggregate bandwidth (no GPU finished with a positive time)";
  if (!s.why.empty() || !(ideal > 0)) {
    if (s.why.empty()) s.why = "the idle links sum to zero";
    return s;
  }
  s.ideal_gbps = ideal;
  s.idle_mean_gbps = ideal / idle_links;
  s.score = *p.aggregate_gbps / ideal;
  if (n >= 2) s.per_gpu_link_score = *s.score * static_cast<double>(n - 1);
  return s;
}

LoadedLatencySummary summarize_loaded_latency(const LoadedLinks& l, const Links& idle) {
  LoadedLatencySummary s;
  const LinkMatrix* base = find_matrix(idle, kLatency);
  std::vector<double> under, at_rest;
  const std::size_t n = l.latency_us.values.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      if (auto b = cell(base, i, j)) at_rest.push_back(*b);
      const auto& v = l.latency_us.values[i][j];
      if (!v) continue;
      under.push_back(*v);
      if (!s.worst_us || *v > *s.worst_us) {
        s.worst_us = *v;
        s.worst_from = static_cast<int>(i);
        s.worst_to = static_cast<int>(j);
      }
    }
  s.idle_median_us = median(at_rest);
  s.loaded_median_us = median(under);
  if (s.worst_us) s.worst_idle_us = cell(base, std::size_t(s.worst_from), std::size_t(s.worst_to));
  return s;
}

std::string render_loaded(const LoadedLinks& l, const Links& idle, const std::vector<std::string>& labels) {
  std::ostringstream os;
  const std::size_t n = labels.size();
  os << "Loaded links: every GPU moves " << l.bytes << " bytes x " << l.repetitions
     << " repetitions over each of its links at the same time (" << n << " GPUs, " << n * (n ? n - 1 : 0)
     << " links); GB/s = 1e9 bytes/s\n";
  if (l.skipped) {
    os << "  skipped: " << *l.skipped << "\n";
    return os.str();
  }
  std::vector<std::vector<std::string>> rows = {
      {"pattern", "what", "GB/s all GPUs", "per GPU min..max", "worst link", "GB/s", "idle GB/s", "score"}};
  for (const LoadedPattern& p : l.patterns) {
    const LoadedSummary s = summarize_loaded(p, idle);
    if (p.links.skipped) {
      rows.push_back({p.name, what(p), "skipped", "", "", "", "", ""});
      continue;
    }
    rows.push_back({p.name, what(p), fixed(s.aggregate_gbps, 1),
                    fixed(s.min_gpu_gbps, 1) + ".." + fixed(s.max_gpu_gbps, 1),
                    s.worst_gbps ? link_name(s.worst_from, s.worst_to, labels) : "-", fixed(s.worst_gbps, 1),
                    fixed(s.worst_idle_gbps, 1), fixed(s.score, 3)});
  }
  os << table(rows, 2);
  os << "  idle GB/s: the same link alone (copy engines: " << kCeUnidir << ", SM push: " << kPushUnidir
     << ", SM pull: " << kPullUnidir << "); score: all GPUs / the sum of the idle links\n";
  for (const LoadedPattern& p : l.patterns)
    if (p.name == kLoadedScorePattern) {
      const LoadedSummary s = summarize_loaded(p, idle);
      os << "\nDense-interconnect score (" << p.name << ", every GPU reads every peer with the copy engines): ";
      if (!s.score) {
        os << "not available: " << (p.links.skipped ? *p.links.skipped : s.why) << "\n";
        break;
      }
      os << fixed(s.score, 3) << "\n  = " << fixed(s.aggregate_gbps, 1) << " GB/s under load / (" << n << "*"
         << n - 1 << " links x " << fixed(s.idle_mean_gbps, 1) << " GB/s mean idle link = "
         << fixed(s.ideal_gbps, 1) << " GB/s); 1.0 = every link at its idle speed at once\n"
         << "  x (N-1) = " << fixed(s.per_gpu_link_score, 3)
         << " per GPU link (p2pmark's normalisation: 1.0 = every GPU at its idle link speed)\n";
    }
  const LoadedLatencySummary lat = summarize_loaded_latency(l, idle);
  os << "\nLatency under load (one-way flag ping-pong while " << l.latency_load << " runs): ";
  if (l.latency_us.skipped) {
    os << "skipped: " << *l.latency_us.skipped << "\n";
  } else {
    os << "median " << fixed(lat.loaded_median_us, 2) << " us (idle " << fixed(lat.idle_median_us, 2) << " us)";
    if (lat.worst_us)
      os << "; worst " << link_name(lat.worst_from, lat.worst_to, labels) << " " << fixed(lat.worst_us, 2)
         << " us (idle " << fixed(lat.worst_idle_us, 2) << " us)";
    os << "\n";
  }
  for (const LoadedPattern& p : l.patterns) {
    os << "\n" << render_link_matrix("loaded " + p.name + "_gbps", p.links, labels);
    if (p.links.skipped) continue;
    os << "  per GPU " << (p.pull ? "in" : "out") << ":";
    for (std::size_t g = 0; g < p.gpu_gbps.size(); ++g)
      os << "  " << (g < labels.size() ? labels[g] : std::to_string(g)) << " " << fixed(p.gpu_gbps[g], 2);
    os << " GB/s; all GPUs " << fixed(p.aggregate_gbps, 2) << " GB/s\n";
  }
  if (!l.latency_us.skipped) os << "\n" << render_link_matrix("loaded latency_us", l.latency_us, labels);
  return os.str();
}

nlohmann::json loaded_to_json(const LoadedLinks& l, const Links& idle) {
  using nlohmann::json;
  json j{{"bytes", l.bytes}, {"repetitions", l.repetitions}, {"score_pattern", kLoadedScorePattern}};
  if (l.skipped) {
    j["skipped"] = *l.skipped;
    return j;
  }
  json patterns = json::object();
  for (const LoadedPattern& p : l.patterns) {
    const LoadedSummary s = summarize_loaded(p, idle);
    json summary{{"links", s.links},
                 {"aggregate_gbps", opt_json(s.aggregate_gbps)},
                 {"ideal_gbps", opt_json(s.ideal_gbps)},
                 {"idle_mean_gbps", opt_json(s.idle_mean_gbps)},
                 {"score", opt_json(s.score)},
                 {"per_gpu_link_score", opt_json(s.per_gpu_link_score)},
                 {"worst_link", s.worst_gbps ? json{{"from", s.worst_from}, {"to", s.worst_to},
                                                    {"gbps", *s.worst_gbps}, {"idle_gbps", opt_json(s.worst_idle_gbps)}}
                                             : json()}};
    if (!s.why.empty()) summary["why"] = s.why;
    patterns[p.name] = {{"method", p.method},
                        {"direction", p.pull ? "pull" : "push"},
                        {"idle_matrix", p.idle_matrix},
                        {"gpu_gbps", json::array()},
                        {"aggregate_gbps", opt_json(p.aggregate_gbps)},
                        {"links", link_matrix_to_json(p.links)},
                        {"summary", summary}};
    for (const auto& g : p.gpu_gbps) patterns[p.name]["gpu_gbps"].push_back(opt_json(g));
  }
  j["patterns"] = patterns;
  for (const LoadedPattern& p : l.patterns)
    if (p.name == kLoadedScorePattern) j["score"] = patterns[p.name]["summary"]["score"];
  const LoadedLatencySummary lat = summarize_loaded_latency(l, idle);
  j["latency_load"] = l.latency_load;
  j["latency_us"] = link_matrix_to_json(l.latency_us);
  j["latency_summary"] = {{"idle_median_us", opt_json(lat.idle_median_us)},
                          {"loaded_median_us", opt_json(lat.loaded_median_us)},
                          {"worst_link", lat.worst_us ? json{{"from", lat.worst_from}, {"to", lat.worst_to},
                                                             {"us", *lat.worst_us},
                                                             {"idle_us", opt_json(lat.worst_idle_us)}}
                                                      : json()}};
  return j;
}

LoadedLinks loaded_from_json(const nlohmann::json& j, std::size_t bus_count, const std::string& where) {
  try {
    LoadedLinks l;
    l.bytes = j.at("bytes").get<std::uint64_t>();
    l.repetitions = j.at("repetitions").get<int>();
    if (j.contains("skipped")) {
      l.skipped = j["skipped"].get<std::string>();
      return l;
    }
    for (std::string_view name : {kLoadedCePush, kLoadedCePull, kLoadedSmPush, kLoadedSmPull}) {
      const auto& pj = j.at("patterns").at(std::string(name));
      LoadedPattern p;
      p.name = std::string(name);
      p.method = pj.at("method").get<std::string>();
      p.pull = pj.at("direction").get<std::string>() == "pull";
      p.idle_matrix = pj.at("idle_matrix").get<std::string>();
      p.links = link_matrix_from_json(pj.at("links"), bus_count, where + " pattern '" + p.name + "'");
      for (const auto& g : pj.at("gpu_gbps")) p.gpu_gbps.push_back(g.is_null() ? std::nullopt : std::optional(g.get<double>()));
      if (!pj.at("aggregate_gbps").is_null()) p.aggregate_gbps = pj["aggregate_gbps"].get<double>();
      l.patterns.push_back(std::move(p));
    }
    l.latency_load = j.at("latency_load").get<std::string>();
    l.latency_us = link_matrix_from_json(j.at("latency_us"), bus_count, where + " latency_us");
    return l;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(where + ": malformed loaded-links object: " + e.what());
  }
}

}  // namespace arbench::topo
