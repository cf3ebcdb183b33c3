#include "results/phase_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "text/wrap.hpp"  // kConsoleWidth

namespace arbench {
namespace {

const char* bucket_name(PhaseBucket b) {
  switch (b) {
    case PhaseBucket::entry: return "entry_skew";
    case PhaseBucket::staging: return "staging";
    case PhaseBucket::wait: return "wait";
    case PhaseBucket::reduce: return "reduce";
    case PhaseBucket::exit: return "exit_skew";
  }
  return "?";
}

// µs to the nanosecond: the clocks tick in ns, and 0.47100000000000003 helps no reader.
double ns_round(double us) { return std::round(us * 1e3) / 1e3; }

std::vector<double> ns_round(std::vector<double> us) {
  for (double& v : us) v = ns_round(v);
  return us;
}

}  // namespace

nlohmann::json phases_to_json(const PhaseTimeline& t) {
  nlohmann::json buckets = nlohmann::json::array(), ranks = nlohmann::json::array();
  for (PhaseBucket b : t.buckets) buckets.push_back(bucket_name(b));
  for (const RankTimeline& r : t.ranks)
    ranks.push_back({{"rank", r.rank}, {"marks_us", ns_round(r.marks_us)}, {"slowest_block", r.slowest_block},
                     {"slowest_block_us", ns_round(r.slowest_us)}});
  const PhaseBreakdown& b = t.breakdown;
  return {{"clock", t.clock},
          {"resolution_ns", t.resolution_ns},
          {"clocks_aligned", t.clocks_aligned},
          {"ops", t.ops},
          {"marks", t.marks},
          {"mark_buckets", buckets},
          {"missing_marks", t.missing_marks},
          {"span_us", ns_round(t.span_us)},
          {"op_us", ns_round(t.op_us)},
          {"latency_us", ns_round(t.latency_us)},
          {"after_last_arrival_us", ns_round(t.after_last_arrival_us)},
          {"breakdown_us",
           {{"entry_skew", ns_round(b.entry_skew)}, {"staging", ns_round(b.staging)}, {"wait", ns_round(b.wait)},
            {"reduce", ns_round(b.reduce)}, {"exit_skew", ns_round(b.exit_skew)}}},
          {"ranks", ranks}};
}

PhaseTimeline phases_from_json(const nlohmann::json& j) {
  PhaseTimeline t;
  t.clock = j.at("clock").get<std::string>();
  t.resolution_ns = j.at("resolution_ns").get<double>();
  t.clocks_aligned = j.value("clocks_aligned", true);
  t.ops = j.value("ops", 0);
  t.marks = j.at("marks").get<std::vector<std::string>>();
  for (const auto& b : j.value("mark_buckets", nlohmann::json::array()))
    for (PhaseBucket k : {PhaseBucket::entry, PhaseBucket::staging, PhaseBucket::wait, PhaseBucket::reduce,
                          PhaseBucket::exit})
      if (b.get<std::string>() == bucket_name(k)) t.buckets.push_back(k);
  t.missing_marks = j.value("missing_marks", 0);
  t.span_us = j.at("span_us").get<double>();
  t.op_us = j.value("op_us", 0.0);
  t.latency_us = j.at("latency_us").get<double>();
  t.after_last_arrival_us = j.at("after_last_arrival_us").get<double>();
  const auto& b = j.at("breakdown_us");
  t.breakdown = {b.at("entry_skew").get<double>(), b.at("staging").get<double>(), b.at("wait").get<double>(),
                 b.at("reduce").get<double>(), b.at("exit_skew").get<double>()};
  for (const auto& r : j.at("ranks"))
    t.ranks.push_back({r.at("rank").get<int>(), r.at("marks_us").get<std::vector<double>>(),
                       r.value("slowest_block", 0), r.value("slowest_block_us", std::vector<double>{})});
  return t;
}

std::string phase_breakdown_table(const std::vector<CaseResult>& results) {
  // Seven number columns after the case name; a name too long to leave them within the console's
  // width gets a line of its own, its numbers on the next.
  const std::string title = "phases: median of recorded ops, us";
  constexpr int kNumbers = 1 + 8 + 1 + 10 + 5 * (1 + 8);
  const int budget = static_cast<int>(kConsoleWidth) - kNumbers;
  int width = static_cast<int>(title.size());
  for (const CaseResult& r : results)
    if (r.phases && static_cast<int>(r.c.name().size()) <= budget) width = std::max(width, static_cast<int>(r.c.name().size()));
  std::string out;
  char line[512];
  for (const CaseResult& r : results) {
    if (!r.phases) continue;
    if (out.empty()) {
      std::snprintf(line, sizeof line, "%-*s %8s %10s %8s %8s %8s %8s %8s\n", width, title.c_str(), "lat",
                    "after-last", "entry", "staging", "wait", "reduce", "exit");
      out += line;
    }
    const PhaseTimeline& t = *r.phases;
    const PhaseBreakdown& b = t.breakdown;
    std::string name = r.c.name();
    if (static_cast<int>(name.size()) > width) {
      out += name + "\n";
      name.clear();
    }
    std::snprintf(line, sizeof line, "%-*s %8.2f %10.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", width, name.c_str(),
                  t.latency_us, t.after_last_arrival_us, b.entry_skew, b.staging, b.wait, b.reduce, b.exit_skew);
    out += line;
  }
  if (!out.empty())
    out += "lat = latency of the recorded ops; after-last = their latency after the last rank arrived\n"
           "entry = entry skew, wait = wait for peers, reduce = reduce+store, exit = exit skew (docs/latency-breakdown.md)\n";
  return out;
}

}  // namespace arbench
