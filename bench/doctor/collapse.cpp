// The collapse probe's patterns, figures and verdict; see collapse.hpp.
#include "doctor/collapse.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace arbench::doctor {
namespace {

constexpr const char* kAlone = "alone ";
constexpr const char* kRound = "round ";

bool usable(const std::vector<std::vector<int>>& ok, std::size_t i, std::size_t j) {
  return i != j && ok[i][j] && ok[j][i];
}

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string label(const CollapseFigures& f, int g) {
  return g >= 0 && std::size_t(g) < f.labels.size() ? f.labels[std::size_t(g)] : "GPU" + std::to_string(g);
}

std::string percent(double r) { return std::to_string(static_cast<int>(r * 100 + 0.5)) + "%"; }

nlohmann::json matrix_json(const Matrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : m) {
    nlohmann::json r = nlohmann::json::array();
    for (const auto& v : row) r.push_back(v ? nlohmann::json(*v) : nlohmann::json());
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

std::vector<topo::Pattern> collapse_patterns(const std::vector<std::vector<int>>& ok) {
  const std::size_t n = ok.size();
  std::vector<topo::Pattern> out;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (usable(ok, i, j))
        for (bool pull : {false, true})
          out.push_back({std::string(kAlone) + (pull ? "read " : "write ") + std::to_string(i) + "->" + std::to_string(j),
                         {{int(i), int(j), pull}}});
  for (bool pull : {false, true})
    for (std::size_t k = 1; k < n; ++k) {
      topo::Pattern p{std::string(kRound) + (pull ? "read +" : "write +") + std::to_string(k), {}};
      for (std::size_t i = 0; i < n; ++i)
        if (usable(ok, i, (i + k) % n)) p.flows.push_back({int(i), int((i + k) % n), pull});
      if (!p.flows.empty()) out.push_back(std::move(p));
    }
  return out;
}

CollapseFigures collapse_figures(const std::vector<std::vector<int>>& ok, const std::vector<topo::Pattern>& patterns,
                                 const std::vector<topo::PatternResult>& results, std::uint64_t bytes, int reps) {
  CollapseFigures f;
  f.gpus = static_cast<int>(ok.size());
  for (int g = 0; g < f.gpus; ++g) f.labels.push_back("GPU" + std::to_string(g));
  f.bytes = bytes;
  f.repetitions = reps;
  const Matrix blank(ok.size(), std::vector<std::optional<double>>(ok.size()));
  f.write_alone = f.write_loaded = f.read_alone = f.read_loaded = blank;
  for (std::size_t i = 0; i < ok.size(); ++i)
    for (std::size_t j = 0; j < ok.size(); ++j)
      if (i != j && !usable(ok, i, j))
        f.notes.push_back(label(f, int(i)) + "->" + label(f, int(j)) + ": no working P2P both ways, not probed");
  for (std::size_t p = 0; p < patterns.size() && p < results.size(); ++p) {
    const topo::Pattern& pat = patterns[p];
    const topo::PatternResult& res = results[p];
    if (res.skipped) {
      f.notes.push_back(pat.name + ": " + *res.skipped);
      continue;
    }
    const bool alone = pat.name.rfind(kAlone, 0) == 0;
    for (std::size_t k = 0; k < pat.flows.size() && k < res.gbps.size(); ++k) {
      const topo::Flow& fl = pat.flows[k];
      Matrix& m = fl.pull ? (alone ? f.read_alone : f.read_loaded) : (alone ? f.write_alone : f.write_loaded);
      m[std::size_t(fl.from)][std::size_t(fl.to)] = res.gbps[k];
    }
  }
  return f;
}

CollapseVerdict judge_collapse(const CollapseFigures& f) {
  CollapseVerdict v;
  std::vector<double> writes, reads;
  double worst = std::numeric_limits<double>::infinity();
  for (int i = 0; i < f.gpus; ++i)
    for (int j = 0; j < f.gpus; ++j) {
      if (i == j) continue;
      const auto &wa = f.write_alone[i][j], &wl = f.write_loaded[i][j], &ra = f.read_alone[i][j],
                 &rl = f.read_loaded[i][j];
      if (!wa || !wl || !ra || !rl || *wa <= 0 || *ra <= 0) continue;
      ++v.pairs;
      writes.push_back(*wl / *wa);
      reads.push_back(*rl / *ra);
      if (*wl / *wa < worst) {
        worst = *wl / *wa;
        v.worst_from = i;
        v.worst_to = j;
      }
    }
  v.write_ratio = median(writes);
  v.read_ratio = median(reads);
  if (v.pairs == 0) {
    v.summary = "no GPU pair was measured both alone and with every GPU at once, writing and reading";
    return v;
  }
  const double w = *v.write_ratio, r = *v.read_ratio;
  char worst_text[160];
  std::snprintf(worst_text, sizeof worst_text, "; worst %s->%s: %.1f -> %.1f GB/s", label(f, v.worst_from).c_str(),
                label(f, v.worst_to).c_str(), *f.write_alone[v.worst_from][v.worst_to],
                *f.write_loaded[v.worst_from][v.worst_to]);
  const std::string figures = "with every GPU at once, writes keep " + percent(w) + " of their speed alone and reads " +
                              percent(r) + " (medians over " + std::to_string(v.pairs) + " pairs" + worst_text + ")";
  if (w < kCollapsed && r >= kHolds) {
    v.verdict = Verdict::slows;
    v.pull_beats_push = true;
    v.summary = figures + ": posted writes collapse and reads hold, pull beats push on this box";
  } else if (w < kCollapsed && r < kCollapsed) {
    v.verdict = Verdict::slows;
    v.summary = figures + ": both collapse, the fabric is oversubscribed when every GPU moves data at once";
  } else if (r < kCollapsed && w >= kHolds) {
    v.verdict = Verdict::slows;
    v.summary = figures + ": reads collapse and writes hold, push beats pull on this box";
  } else {
    v.verdict = Verdict::ok;
    v.summary = figures;
  }
  return v;
}

nlohmann::json collapse_to_json(const CollapseFigures& f, const CollapseVerdict& v) {
  auto opt = [](const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(); };
  return {{"labels", f.labels},
          {"bytes", f.bytes},
          {"repetitions", f.repetitions},
          {"unit", "GB/s"},
          {"write_alone", matrix_json(f.write_alone)},
          {"write_loaded", matrix_json(f.write_loaded)},
          {"read_alone", matrix_json(f.read_alone)},
          {"read_loaded", matrix_json(f.read_loaded)},
          {"notes", f.notes},
          {"pairs", v.pairs},
          {"write_ratio", opt(v.write_ratio)},
          {"read_ratio", opt(v.read_ratio)},
          {"pull_beats_push", v.pull_beats_push}};
}

}  // namespace arbench::doctor
