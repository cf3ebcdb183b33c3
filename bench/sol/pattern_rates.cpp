// The pattern probe's figures as data, JSON and text; see pattern_rates.hpp.
#include "sol/pattern_rates.hpp"

#include <algorithm>
#include <cstdio>

#include "arbench/core/errors.hpp"
#include "io/input_file.hpp"
#include "text/wrap.hpp"

namespace arbench::sol {
namespace {

using nlohmann::json;

void consider(const std::optional<double>& v, const char* mover, std::optional<double>* best, std::string* which) {
  if (!v || !(*v > 0) || (*best && **best >= *v)) return;
  *best = v;
  if (which) *which = mover;
}

json optionals(const std::vector<std::optional<double>>& v) {
  json a = json::array();
  for (const auto& x : v) a.push_back(x ? json(*x) : json());
  return a;
}

std::vector<std::optional<double>> optionals_from(const json& j, std::size_t n, const std::string& where) {
  if (!j.is_array() || j.size() != n)
    throw UsageError(where + ": expected an array of " + std::to_string(n) + " numbers or nulls (one per flow or pair)");
  std::vector<std::optional<double>> out;
  for (const auto& v : j) {
    if (v.is_null()) out.emplace_back();
    else if (v.is_number() && v.get<double>() >= 0) out.emplace_back(v.get<double>());
    else throw UsageError(where + ": " + v.dump() + " is not a non-negative number or null");
  }
  return out;
}

json pairs_json(const std::vector<std::pair<int, int>>& v) {
  json a = json::array();
  for (const auto& [x, y] : v) a.push_back({x, y});
  return a;
}

std::vector<std::pair<int, int>> pairs_from(const json& j, std::size_t positions, const std::string& where) {
  if (!j.is_array()) throw UsageError(where + ": expected an array of [from, to] pairs");
  std::vector<std::pair<int, int>> out;
  for (const auto& p : j) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer())
      throw UsageError(where + ": " + p.dump() + " is not a [from, to] pair of positions");
    const int a = p[0].get<int>(), b = p[1].get<int>();
    if (a < 0 || b < 0 || std::size_t(a) >= positions || std::size_t(b) >= positions || a == b)
      throw UsageError(where + ": pair " + p.dump() + " is outside the " + std::to_string(positions) + " positions");
    out.emplace_back(a, b);
  }
  return out;
}

template <class Enum, std::size_t N>
Enum named(const std::string& s, const Enum (&all)[N], const char* (*name)(Enum), const std::string& where) {
  for (Enum e : all)
    if (s == name(e)) return e;
  throw UsageError(where + ": unknown '" + s + "'");
}

constexpr TrafficShape kShapes[] = {TrafficShape::all_pairs, TrafficShape::ring, TrafficShape::chain,
                                    TrafficShape::island_inside, TrafficShape::island_across};
constexpr TrafficDirection kDirections[] = {TrafficDirection::push, TrafficDirection::pull};

std::string range(const std::vector<double>& v) {
  if (v.empty()) return "-";
  char b[48];
  std::snprintf(b, sizeof b, "%.1f..%.1f", *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
  return b;
}

std::string size_text(std::uint64_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b >= (1u << 10) && b % (1u << 10) == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

}  // namespace

std::optional<double> MeasuredPattern::flow_gbps(int from, int to, std::string* mover) const {
  std::optional<double> best;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (flows[f] != std::pair{from, to}) continue;
    for (const auto& s : sizes) {
      if (f < s.sm_gbps.size()) consider(s.sm_gbps[f], "SM", &best, mover);
      if (f < s.ce_gbps.size()) consider(s.ce_gbps[f], "copy engine", &best, mover);
    }
  }
  return best;
}

std::optional<double> MeasuredPattern::fastest_gbps(std::string* mover) const {
  std::optional<double> best;
  for (const auto& [from, to] : flows) {
    std::string m;
    consider(flow_gbps(from, to, &m), m == "SM" ? "SM" : "copy engine", &best, mover);
  }
  return best;
}

namespace {
std::optional<double> slowest(const std::vector<std::optional<double>>& hops) {
  std::optional<double> worst;
  for (const auto& v : hops)
    if (v && (!worst || *v > *worst)) worst = v;
  return worst;
}
}  // namespace

std::optional<double> MeasuredPattern::slowest_hop_us() const { return slowest(latency_us); }
std::optional<double> MeasuredPattern::slowest_idle_hop_us() const { return slowest(idle_latency_us); }

const MeasuredPattern* PatternRates::find(TrafficShape s, TrafficDirection d, int world) const {
  for (const auto& p : patterns)
    if (p.shape == s && p.direction == d && p.world == world && !p.skipped) return &p;
  return nullptr;
}

void add_size(PatternRates& rates, const std::vector<PlannedPattern>& plan, std::uint64_t bytes,
              const std::vector<topo::PatternResult>& results) {
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PlannedPattern& pp = plan[i];
    auto it = std::find_if(rates.patterns.begin(), rates.patterns.end(),
                           [&](const MeasuredPattern& m) { return m.key == pp.pattern.name; });
    if (it == rates.patterns.end()) {
      MeasuredPattern m{pp.pattern.name, pp.shape, pp.direction, pp.world, {}, {}, pp.pattern.latency_pairs, {}, {}, {}, {}};
      for (const auto& f : pp.pattern.flows) m.flows.emplace_back(f.from, f.to);
      m.latency_us.assign(m.latency_pairs.size(), std::nullopt);
      m.idle_latency_us.assign(m.latency_pairs.size(), std::nullopt);
      rates.patterns.push_back(std::move(m));
      it = rates.patterns.end() - 1;
    }
    if (i >= results.size()) continue;
    const topo::PatternResult& r = results[i];
    for (const auto& n : r.notes) it->notes.push_back(size_text(bytes) + ": " + n);
    if (r.skipped) {
      it->notes.push_back(size_text(bytes) + ": " + *r.skipped);
      continue;
    }
    it->sizes.push_back({bytes, r.gbps, r.ce_gbps});
    for (std::size_t k = 0; k < r.latency_us.size() && k < it->latency_us.size(); ++k)
      if (r.latency_us[k]) it->latency_us[k] = r.latency_us[k];
    for (std::size_t k = 0; k < r.idle_latency_us.size() && k < it->idle_latency_us.size(); ++k)
      if (r.idle_latency_us[k]) it->idle_latency_us[k] = r.idle_latency_us[k];
  }
  for (auto& m : rates.patterns)
    if (m.sizes.empty()) m.skipped = "nothing measured" + (m.notes.empty() ? std::string() : " (" + m.notes.back() + ")");
    else m.skipped.reset();
}

json pattern_rates_to_json(const PatternRates& r) {
  json patterns = json::array();
  for (const auto& p : r.patterns) {
    json sizes = json::array();
    for (const auto& s : p.sizes) {
      json one = {{"bytes", s.bytes}, {"sm_gbps", optionals(s.sm_gbps)}};
      if (!s.ce_gbps.empty()) one["ce_gbps"] = optionals(s.ce_gbps);
      sizes.push_back(one);
    }
    json e = {{"key", p.key},
              {"shape", traffic_shape_name(p.shape)},
              {"direction", traffic_direction_name(p.direction)},
              {"world", p.world},
              {"flows", pairs_json(p.flows)},
              {"sizes", sizes},
              {"latency_pairs", pairs_json(p.latency_pairs)},
              {"latency_us", optionals(p.latency_us)},
              {"idle_latency_us", optionals(p.idle_latency_us)}};
    if (!p.notes.empty()) e["notes"] = p.notes;
    if (p.skipped) e["skipped"] = *p.skipped;
    patterns.push_back(e);
  }
  return {{"schema", kPatternRatesSchema}, {"timing", r.timing},   {"method", r.method},
          {"positions", r.positions},      {"repetitions", r.repetitions}, {"patterns", patterns}};
}

PatternRates pattern_rates_from_json(const json& j, const std::string& where) {
  try {
    if (!j.is_object() || j.value("schema", "") != kPatternRatesSchema)
      throw UsageError(where + ": not a patterns object (\"schema\": \"" + std::string(kPatternRatesSchema) + "\")");
    PatternRates r;
    r.timing = j.value("timing", "gpu");
    if (r.timing != "gpu" && r.timing != "cpu") throw UsageError(where + ": timing '" + r.timing + "' is not gpu or cpu");
    r.method = j.value("method", "");
    r.positions = j.at("positions").get<std::vector<std::string>>();
    r.repetitions = j.value("repetitions", 0);
    for (const auto& e : j.at("patterns")) {
      const std::string at = where + " pattern '" + e.value("key", "?") + "'";
      MeasuredPattern p;
      p.key = e.at("key").get<std::string>();
      p.shape = named(e.at("shape").get<std::string>(), kShapes, &traffic_shape_name, at + " shape");
      p.direction = named(e.at("direction").get<std::string>(), kDirections, &traffic_direction_name, at + " direction");
      p.world = e.at("world").get<int>();
      if (p.world < 2 || std::size_t(p.world) > r.positions.size())
        throw UsageError(at + ": world " + std::to_string(p.world) + " outside 2.." + std::to_string(r.positions.size()));
      p.flows = pairs_from(e.at("flows"), r.positions.size(), at + " flows");
      for (const auto& s : e.at("sizes")) {
        SizeRates sr{s.at("bytes").get<std::uint64_t>(), optionals_from(s.at("sm_gbps"), p.flows.size(), at + " sm_gbps"), {}};
        if (s.contains("ce_gbps")) sr.ce_gbps = optionals_from(s.at("ce_gbps"), p.flows.size(), at + " ce_gbps");
        p.sizes.push_back(std::move(sr));
      }
      p.latency_pairs = pairs_from(e.at("latency_pairs"), r.positions.size(), at + " latency_pairs");
      p.latency_us = optionals_from(e.at("latency_us"), p.latency_pairs.size(), at + " latency_us");
      // Absent in files written before idle hops were measured: the floor then prices the loaded
      // hop and says so.
      p.idle_latency_us = e.contains("idle_latency_us")
                              ? optionals_from(e.at("idle_latency_us"), p.latency_pairs.size(), at + " idle_latency_us")
                              : std::vector<std::optional<double>>(p.latency_pairs.size());
      if (e.contains("notes")) p.notes = e.at("notes").get<std::vector<std::string>>();
      if (e.contains("skipped")) p.skipped = e.at("skipped").get<std::string>();
      r.patterns.push_back(std::move(p));
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(where + ": malformed patterns object: " + e.what());
  }
}

std::optional<PatternRates> read_pattern_rates(const std::filesystem::path& file) {
  const std::string path = file.string();
  const json j = read_json_input(path, "a topology file written by `arbench topo --out FILE.json`");
  if (!j.is_object() || !j.contains("patterns")) return std::nullopt;
  return pattern_rates_from_json(j.at("patterns"), path + " \"patterns\"");
}

std::string render_pattern_rates(const PatternRates& r) {
  std::vector<std::vector<std::string>> rows = {
      {"pattern", "flows", "SM GB/s", "CE GB/s", "hop us", "loaded hop us", "sizes"}};
  for (const auto& p : r.patterns) {
    if (p.skipped) {
      rows.push_back({p.key, std::to_string(p.flows.size()), "-", "-", "-", "-", "skipped: " + *p.skipped});
      continue;
    }
    std::vector<double> sm, ce;
    for (std::size_t f = 0; f < p.flows.size(); ++f) {
      std::optional<double> bs, bc;
      for (const auto& s : p.sizes) {
        if (f < s.sm_gbps.size()) consider(s.sm_gbps[f], "SM", &bs, nullptr);
        if (f < s.ce_gbps.size()) consider(s.ce_gbps[f], "copy engine", &bc, nullptr);
      }
      if (bs) sm.push_back(*bs);
      if (bc) ce.push_back(*bc);
    }
    std::string sizes;
    for (const auto& s : p.sizes) sizes += (sizes.empty() ? "" : " ") + size_text(s.bytes);
    char idle[32] = "-", loaded[32] = "-";
    if (const auto h = p.slowest_idle_hop_us()) std::snprintf(idle, sizeof idle, "%.2f", *h);
    if (const auto h = p.slowest_hop_us()) std::snprintf(loaded, sizeof loaded, "%.2f", *h);
    rows.push_back({p.key, std::to_string(p.flows.size()), range(sm), range(ce), idle, loaded, sizes});
  }
  std::vector<std::size_t> w(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) w[c] = std::max(w[c], row[c].size());
  std::string out = fit_line(std::string("Schedule patterns (the floor's rates): every flow of a pattern at once; GB/s "
                                         "per flow, min..max over its flows; hop: one-way flag latency, the slowest pair, with nothing "
                                         "running (the floor's) and under the pattern") +
                                 (r.timing == "cpu" ? "; CPU threads, CPU timing" : ""),
                             2);
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(w[c] - row[c].size(), ' ');
      line += (c == 0 || c + 1 == row.size() ? row[c] + pad : pad + row[c]) + "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.size() > 120) line = line.substr(0, 117) + "...";
    out += line + "\n";
  }
  for (const auto& p : r.patterns)
    for (const auto& n : p.notes) {
      std::string line = "  note: " + p.key + ": " + n;
      if (line.size() > 120) line = line.substr(0, 117) + "...";
      out += line + "\n";
    }
  return out;
}

std::map<int, double> copy_engine_rates(const PatternRates& r, const std::vector<int>& worlds) {
  std::map<int, double> out;
  if (r.timing != "gpu") return out;
  for (const auto& p : r.patterns) {
    if (std::find(worlds.begin(), worlds.end(), p.world) == worlds.end()) continue;
    for (const auto& s : p.sizes)
      for (const auto& g : s.ce_gbps)
        if (g && *g > 0 && (!out.count(p.world) || *g > out[p.world])) out[p.world] = *g;
  }
  return out;
}

}  // namespace arbench::sol
