// TuneReport → dispatch-table JSON and human tables; see tune_report.hpp.
#include "analysis/tune_report.hpp"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/report_table.hpp"
#include "text/wrap.hpp"

namespace arbench {

std::string format_size(std::uint64_t size, const std::string& axis) {
  if (axis != "bytes") return std::to_string(size);
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::uint64_t v = size;
  while (unit < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  return std::to_string(v) + " " + kUnits[unit];
}

nlohmann::json dispatch_table_json(const TuneReport& rep) {
  using nlohmann::json;
  json j;
  j["schema"] = "arbench-dispatch-table";
  j["schema_version"] = kDispatchTableSchemaVersion;
  j["source"] = {{"result", rep.source_path},     {"fingerprint", rep.fingerprint},
                 {"backend", rep.backend},        {"timing", rep.timing},
                 {"arbench_revision", rep.revision}, {"alpha", rep.alpha}};
  j["tables"] = json::array();
  for (const TuneTable& t : rep.tables) {
    json jt = {{"family", t.family}, {"dtype", t.dtype},     {"world", t.world},
               {"axis", t.axis},     {"in_place", t.in_place},
               {"cache", t.cold_cache ? "cold" : "hot"}};
    if (t.family == "allreduce_rmsnorm") jt["hidden"] = t.hidden;
    if (!t.islands.empty()) jt["islands"] = t.islands;  // what the island variants' rules assume
    jt["rules"] = json::array();
    for (const DispatchRule& r : t.rules)
      jt["rules"].push_back({{"max", r.unbounded ? json(nullptr) : json(r.max_size)},
                             {"variant", r.variant}});
    jt["points"] = json::array();
    for (const TunePoint& p : t.points) {
      json jp = {{"size", p.size}, {"best", p.best}, {"best_us", p.best_us},
                 {"best_sms", p.best_sms >= 0 ? json(p.best_sms) : json(nullptr)}, {"candidates", p.candidates}};
      if (!p.runner_up.empty()) {
        jp["runner_up"] = p.runner_up;
        jp["runner_up_us"] = p.runner_up_us;
        jp["margin"] = p.margin;
        if (p.preferred_pull) jp["preferred"] = "pull";
        if (p.preferred_fewer_sms) jp["preferred"] = "fewer_sms";
        jp["runner_up_sms"] = p.runner_up_sms >= 0 ? json(p.runner_up_sms) : json(nullptr);
        jp["p_value"] = p.p_value;
        jp["significant"] = p.significant;
      } else {
        jp["runner_up"] = nullptr;
        jp["significant"] = false;
      }
      jt["points"].push_back(std::move(jp));
    }
    jt["crossovers"] = json::array();
    for (const Crossover& c : t.crossovers)
      jt["crossovers"].push_back(
          {{"from", c.from}, {"to", c.to}, {"after", c.last_from}, {"before", c.first_to}});
    j["tables"].push_back(std::move(jt));
  }
  if (!rep.referee.empty()) {
    json points = json::array();
    int met = 0;
    for (const RefereePoint& p : rep.referee) {
      met += p.met() ? 1 : 0;
      json jp = {{"family", p.family}, {"dtype", p.dtype}, {"world", p.world}, {"in_place", p.in_place},
                 {"cache", p.cold_cache ? "cold" : "hot"}, {"size", p.size}, {"axis", p.axis},
                 {"peer", p.peer}, {"engine_case", p.engine_case}, {"engine_us", p.engine_us},
                 {"arbench_best", p.arbench_best}, {"arbench_us", p.arbench_us}, {"p_value", p.p_value},
                 {"significant", p.significant}, {"met", p.met()}};
      if (p.family == "allreduce_rmsnorm") jp["hidden"] = p.hidden;
      points.push_back(std::move(jp));
    }
    j["referee"] = {{"met", met}, {"of", rep.referee.size()}, {"points", std::move(points)}};
  }
  return j;
}

// "allreduce bf16, 8 GPUs[, hidden H][, in-place][, cold cache]": a tune table's, or a referee point's.
template <class T>
static std::string table_title(const T& t) {
  std::string title = t.family + " " + t.dtype + ", " + std::to_string(t.world) + " GPUs";
  if (t.family == "allreduce_rmsnorm") title += ", hidden " + std::to_string(t.hidden);
  if (t.in_place) title += ", in-place";
  if (t.cold_cache) title += ", cold cache";
  return title;
}

// arbench's best against each peer as its engine runs it: a table per tune table, then the goal.
static std::string referee_section(const TuneReport& rep, bool md) {
  if (rep.referee.empty()) return {};
  std::string out = md ? "\n#### arbench against each peer as its engine runs it\n\n" : "\n";
  out += fit_line(std::string(md ? "" : "arbench against each peer as its engine runs it: ") +
                      "the engine's choice is the fastest of the peer's cases its engine may run (vLLM's FlashInfer "
                      "tuner picks among the PCIe-IPC schedules); arbench's best is its fastest own variant (no NCCL); "
                      "verdict: arbench's best faster, slower or a tie (Mann-Whitney); the goal: not slower",
                  2);
  std::vector<const RefereePoint*> missed;
  std::string title;
  std::optional<ReportTable> tab;
  const auto flush = [&] {
    if (tab) out += md ? tab->markdown() : tab->text();
  };
  for (const RefereePoint& p : rep.referee) {
    const std::string t = table_title(p);
    if (t != title) {
      flush();
      title = t;
      out += md ? "\n" + t + "\n\n" : "\n" + t + "\n";
      tab.emplace(std::vector<std::string>{p.axis == "bytes" ? "size" : "tokens", "engine's choice", "us",
                                           "arbench's best", "us", "arbench/peer", "verdict"},
                  std::vector<bool>{true, false, true, false, true, true, false});
    }
    const std::string verdict = !p.significant ? "tie (p " + format_p_value(p.p_value) + ")"
                                : p.arbench_us < p.engine_us ? "faster"
                                                             : "slower";
    tab->add_row({format_size(p.size, p.axis), md ? "`" + p.engine_case + "`" : p.engine_case,
                  format_fixed(p.engine_us, 2), md ? "`" + p.arbench_best + "`" : p.arbench_best,
                  format_fixed(p.arbench_us, 2), format_fixed(p.engine_us > 0 ? p.arbench_us / p.engine_us : 0, 2),
                  verdict});
    if (!p.met()) missed.push_back(&p);
  }
  flush();
  const std::size_t of = rep.referee.size();
  out += (md ? "\n" : "") + std::string("goal: met at ") + std::to_string(of - missed.size()) + " of " +
         std::to_string(of) + " points (a size, a GPU count, a peer)" + (missed.empty() ? "\n" : "; not met at:\n");
  for (const RefereePoint* p : missed)
    out += fit_line((md ? "- " : "  ") + table_title(*p) + ", " + format_size(p->size, p->axis) +
                        (p->axis == "tokens" ? " tokens" : "") + ": " + p->arbench_best + " " +
                        format_fixed((p->arbench_us / p->engine_us - 1) * 100, 1) + "% slower than " +
                        p->engine_case + " (p " + format_p_value(p->p_value) + ")",
                    4);
  return out;
}

// Why a `+` winner won: a line per point where a tie went to fewer SMs.
static std::string fewer_sms_lines(const TuneTable& t, bool md) {
  std::string out;
  for (const TunePoint& p : t.points)
    if (p.preferred_fewer_sms)
      out += fit_line((md ? "- " : "  ") + std::string("+ ") + format_size(p.size, t.axis) + ": " + p.best + " (" +
                          std::to_string(p.best_sms) + " SMs) ties " + p.runner_up + " (" + std::to_string(p.runner_up_sms) +
                          " SMs) within the noise (p " + format_p_value(p.p_value) +
                          "): a tie goes to fewer SMs, which leave a model running beside it more of the GPU",
                      4);
  return out;
}

std::string format_tune(const TuneReport& rep, ReportFormat format) {
  if (format == ReportFormat::json) return dispatch_table_json(rep).dump(2) + "\n";
  const bool md = format == ReportFormat::markdown;
  std::string out = md ? "### arbench tune\n\n" : "arbench tune\n";
  std::string source = "result " + (md ? "`" + rep.source_path + "`" : rep.source_path);
  if (!rep.backend.empty()) source += " (backend " + rep.backend + ", " + rep.timing + " timing)";
  out += md ? source + "\n" : fit_line(source, 2);
  out += "margin = runner-up median / best median - 1; significant = Mann-Whitney p < " + format_fixed(rep.alpha, 3) + "\n";
  if (rep.prefer_pull)
    out += fit_line("pull beats push on this box (arbench doctor, recorded by run --doctor): a pull variant not "
                    "significantly slower than the fastest push one is chosen instead (marked *)", 2);
  const bool fewer_sms = std::any_of(rep.tables.begin(), rep.tables.end(), [](const TuneTable& t) {
    return std::any_of(t.points.begin(), t.points.end(), [](const TunePoint& p) { return p.preferred_fewer_sms; });
  });
  if (fewer_sms)
    out += fit_line("a variant that takes fewer SMs and ties the fastest within the noise (not significantly "
                    "slower, the medians' 95% intervals overlapping) is chosen instead (marked +): the SMs it "
                    "leaves are the model's",
                    2);
  for (const TuneTable& t : rep.tables) {
    const std::string title = table_title(t);
    out += md ? "\n#### " + title + "\n\n" : "\n" + title + "\n";
    ReportTable tab({t.axis == "bytes" ? "size" : "tokens", "best", "us", "runner-up", "us",
                     "margin", "significant"},
                    {true, false, true, false, true, true, false});
    for (const TunePoint& p : t.points) {
      const bool has_runner = !p.runner_up.empty();
      tab.add_row({format_size(p.size, t.axis),
                   (md ? "`" + p.best + "`" : p.best) + (p.preferred_pull ? " *" : "") + (p.preferred_fewer_sms ? " +" : ""),
                   format_fixed(p.best_us, 2),
                   has_runner ? (md ? "`" + p.runner_up + "`" : p.runner_up) : "-",
                   has_runner ? format_fixed(p.runner_up_us, 2) : "",
                   has_runner ? format_fixed(p.margin * 100, 1) + "%" : "",
                   has_runner ? (p.significant ? "yes" : "no (p " + format_p_value(p.p_value) + ")")
                              : "only variant"});
    }
    out += md ? tab.markdown() : tab.text();
    out += fewer_sms_lines(t, md);
    if (t.crossovers.empty()) {
      out += (md ? "\n" : "") + std::string("crossovers: none\n");
    } else {
      out += md ? "\ncrossovers:\n" : "crossovers:\n";
      for (const Crossover& c : t.crossovers)
        out += (md ? "- " : "  ") + c.from + " -> " + c.to + " between " +
               format_size(c.last_from, t.axis) + " and " + format_size(c.first_to, t.axis) + "\n";
    }
  }
  if (!rep.peer_labels.empty()) {
    out += "\npeers (other projects' kernels: docs/variants.md, \"Peers\"):\n";
    for (const auto& [variant, label] : rep.peer_labels)
      out += md ? "- `" + variant + "`: " + label + "\n" : fit_line("  " + variant + ": " + label, 4);
  }
  out += referee_section(rep, md);
  if (!rep.ignored.empty()) {
    out += "\nignored (" + std::to_string(rep.ignored.size()) + "):\n";
    for (const std::string& s : rep.ignored) out += md ? "- " + s + "\n" : fit_line("  " + s, 4);
  }
  return out;
}

}  // namespace arbench
