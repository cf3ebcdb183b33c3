#include "results/report.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "arbench/core/errors.hpp"
#include "results/device_state.hpp"
#include "results/fusion_summary.hpp"
#include "results/load_figures.hpp"
#include "results/phase_report.hpp"
#include "results/stats/stats.hpp"

namespace arbench {

namespace {

// The latency figures a case's JSON holds, with their keys, for writing and reading alike (p50_us,
// the median again, is written only).
constexpr std::pair<const char*, double Summary::*> kLatencyKeys[] = {
    {"median_us", &Summary::median}, {"p10_us", &Summary::p10}, {"p90_us", &Summary::p90}, {"p99_us", &Summary::p99}};

}  // namespace

nlohmann::json case_to_json(const CaseResult& r) {
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& [k, v] : r.settings) settings[k] = v;
  nlohmann::json j = {{"name", r.c.name()},
                      {"variant", r.c.variant},
                      {"family", std::string(family_name(r.c.family))},
                      {"dtype", std::string(dtype_name(r.c.dtype))},
                      {"world", r.c.world},
                      {"bytes", r.c.bytes},
                      {"tokens", r.c.tokens},
                      {"hidden", r.c.hidden},
                      {"in_place", r.c.in_place},
                      {"skew_us", r.c.skew_us},
                      {"status", r.ok ? "ok" : "failed"},
                      {"reason", r.reason},
                      {"checked", r.checked},
                      {"samples_us", r.samples_us},
                      {"p50_us", r.latency_us.median},  // the median again, under its percentile's name
                      {"pipelined_us", r.pipelined_us >= 0 ? nlohmann::json(r.pipelined_us) : nlohmann::json()},
                      {"algbw_GBps", r.algbw_gbps},
                      {"busbw_GBps", r.busbw_gbps},
                      {"wrong_elements", r.wrong_elements},
                      {"start_skew_us", r.start_skew_us >= 0 ? nlohmann::json(r.start_skew_us) : nlohmann::json()},
                      {"floor_us", r.floor_us >= 0 ? nlohmann::json(r.floor_us) : nlohmann::json()},
                      {"discarded_samples", r.discarded_samples},
                      {"settings", settings}};
  for (const auto& [key, figure] : kLatencyKeys) j[key] = r.latency_us.*figure;
  if (r.c.family == Family::allreduce_rmsnorm) j["max_ulp_error"] = r.max_ulp_error;
  // Lossy variants' error figures (docs/method.md, "Accuracy"); absent for exact variants, null
  // when not finite (a NaN or inf output: the case failed its check).
  for (const auto& [key, v] : {std::pair{"max_abs_err", r.max_abs_err}, std::pair{"rms_rel_err", r.rms_rel_err}})
    if (v) j[key] = std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json();
  if (r.clock_sync)
    j["clock_sync"] = {{"method", r.clock_sync->method},
                       {"error_bound_us", r.clock_sync->error_bound_us},
                       {"drift_us", r.clock_sync->drift_us >= 0 ? nlohmann::json(r.clock_sync->drift_us) : nlohmann::json()},
                       {"age_s", r.clock_sync->age_s}};
  if (!r.data_path.empty()) j["data_path"] = r.data_path;
  if (r.phases) j["phases"] = phases_to_json(*r.phases);
  j["cache"] = r.c.cold_cache ? "cold" : "hot";
  if (!r.symm_mem.empty()) j["symm_mem"] = r.symm_mem;  // the cuda backend's provider (docs/variants.md)
  const MedianInterval& ci = r.median_ci_us;
  j["noise"] = ci.known && std::isfinite(ci.noise) ? nlohmann::json(ci.noise) : nlohmann::json();
  j["median_ci_us"] = ci.known ? nlohmann::json::array({ci.lower, ci.upper}) : nlohmann::json();
  if (!r.sampling_stop.empty()) j["sampling"] = {{"stop", r.sampling_stop}, {"time_s", r.sampling_time_s}};
  if (r.device) j["device_state"] = device_state_to_json(*r.device);
  // The speed-of-light floor (bench/sol/): the figure, how close the case came, and how it was made.
  if (r.sol) {
    j["sol_us"] = r.sol->sol_us;
    const auto pct = pct_of_sol(r);
    j["pct_of_sol"] = pct ? nlohmann::json(*pct) : nlohmann::json();
    j["sol"] = sol_to_json(*r.sol, below_floor(r));
  } else if (!r.sol_none.empty()) {
    j["sol"] = {{"none", r.sol_none}};
  }
  load_figures_to_json(r, j);
  for (const auto& [k, v] : r.extra) j[k] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
  return j;
}

nlohmann::json sol_to_json(const SolFloor& f, bool below) {
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : f.phases)
    phases.push_back({{"what", p.what}, {"pattern", p.pattern}, {"busiest_bytes", p.busiest_bytes},
                      {"gbps", p.gbps}, {"mover", p.mover}, {"transfer_us", p.transfer_us},
                      {"waits", p.waits}, {"hop_us", p.hop_us}});
  nlohmann::json j = {{"schedule", f.schedule},       {"hop_us", f.hop_us},
                      {"round_trips", f.round_trips}, {"round_trips_source", f.round_trips_source},
                      {"transfer_us", f.transfer_us}, {"phases", phases},
                      {"rates", f.rates},             {"timing", f.timing},
                      {"below_floor", below}, {"latency_us", f.latency_us},
                      {"pipelined", f.pipelined}};
  if (!f.notes.empty()) j["notes"] = f.notes;
  return j;
}

SolFloor sol_from_json(const nlohmann::json& j) {
  SolFloor f;
  f.schedule = j.value("schedule", "");
  f.hop_us = j.value("hop_us", 0.0);
  f.round_trips = j.value("round_trips", 0.0);
  f.round_trips_source = j.value("round_trips_source", "");
  f.transfer_us = j.value("transfer_us", 0.0);
  f.latency_us = j.value("latency_us", f.hop_us * f.round_trips);
  f.pipelined = j.value("pipelined", false);
  for (const auto& p : j.value("phases", nlohmann::json::array()))
    f.phases.push_back({p.value("what", ""), p.value("pattern", ""), p.value("busiest_bytes", 0.0), p.value("gbps", 0.0),
                        p.value("mover", ""), p.value("transfer_us", 0.0), p.value("waits", 0.0),
                        p.value("hop_us", 0.0)});
  f.rates = j.value("rates", "");
  f.timing = j.value("timing", "");
  f.notes = j.value("notes", std::vector<std::string>{});
  return f;
}

CaseResult case_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    CaseResult r;
    const std::string name = j.at("name").get<std::string>();
    const auto c = Case::parse(name);
    if (!c) throw UsageError(where + ": '" + name + "' is not an arbench case name");
    r.c = *c;
    r.ok = j.at("status").get<std::string>() == "ok";
    r.reason = j.value("reason", std::string());
    r.checked = j.value("checked", false);
    r.samples_us = j.at("samples_us").get<std::vector<double>>();
    for (const auto& [key, figure] : kLatencyKeys) r.latency_us.*figure = j.at(key).get<double>();
    if (!r.samples_us.empty()) {  // the rest of the summary (min, max, count) from the samples
      const Summary full = summarize(r.samples_us);
      r.latency_us.min = full.min;
      r.latency_us.max = full.max;
      r.latency_us.count = full.count;
    }
    r.pipelined_us = j.value("pipelined_us", nlohmann::json()).is_number() ? j.at("pipelined_us").get<double>() : -1;
    r.algbw_gbps = j.at("algbw_GBps").get<double>();
    r.busbw_gbps = j.at("busbw_GBps").get<double>();
    r.wrong_elements = j.at("wrong_elements").get<std::size_t>();
    r.max_ulp_error = j.value("max_ulp_error", 0.0);
    auto number_or = [&](const char* k, double fallback) {
      return j.contains(k) && j.at(k).is_number() ? j.at(k).get<double>() : fallback;
    };
    for (auto [key, field] : {std::pair{"max_abs_err", &r.max_abs_err}, std::pair{"rms_rel_err", &r.rms_rel_err}})
      if (j.contains(key) && j.at(key).is_number()) *field = j.at(key).get<double>();
    r.start_skew_us = number_or("start_skew_us", -1);
    r.floor_us = number_or("floor_us", -1);
    r.discarded_samples = j.value("discarded_samples", 0);
    const nlohmann::json settings = j.value("settings", nlohmann::json::object());  // items() needs it alive
    for (const auto& [k, v] : settings.items()) r.settings.emplace_back(k, v.get<std::string>());
    if (j.contains("phases")) r.phases = phases_from_json(j.at("phases"));
    if (j.contains("median_ci_us") && j.at("median_ci_us").is_array()) {
      r.median_ci_us.known = true;
      r.median_ci_us.lower = j.at("median_ci_us")[0].get<double>();
      r.median_ci_us.upper = j.at("median_ci_us")[1].get<double>();
      r.median_ci_us.noise = number_or("noise", 0);
    }
    if (j.contains("sampling")) {
      r.sampling_stop = j.at("sampling").at("stop").get<std::string>();
      r.sampling_time_s = j.at("sampling").at("time_s").get<double>();
    }
    if (j.contains("device_state")) r.device = device_state_from_json(j.at("device_state"), where + " device_state");
    if (j.contains("clock_sync")) {
      const auto& k = j.at("clock_sync");
      r.clock_sync = ClockSync{k.at("method").get<std::string>(), k.at("error_bound_us").get<double>(),
                               k.contains("drift_us") && k.at("drift_us").is_number() ? k.at("drift_us").get<double>() : -1,
                               k.value("age_s", 0.0)};
    }
    r.data_path = j.value("data_path", std::string());
    if (j.contains("sol") && j.at("sol").is_object()) {
      if (j.at("sol").contains("none")) r.sol_none = j.at("sol").at("none").get<std::string>();
      else r.sol = sol_from_json(j.at("sol"));
      if (r.sol) r.sol->sol_us = number_or("sol_us", 0);
    }
    load_figures_from_json(j, r);
    static const std::set<std::string> known = {
        "name", "variant", "family", "dtype", "world", "bytes", "tokens", "hidden", "in_place", "skew_us", "status",
        "reason", "checked", "samples_us", "median_us", "p10_us", "p50_us", "p90_us", "p99_us", "pipelined_us",
        "algbw_GBps", "busbw_GBps", "wrong_elements", "start_skew_us", "floor_us", "discarded_samples", "settings",
        "max_ulp_error", "phases", "cache", "noise", "median_ci_us", "sampling", "device_state", "clock_sync",
        "data_path", "max_abs_err", "rms_rel_err", "sol_us", "pct_of_sol", "sol",
        kLoadFigureKeys[0], kLoadFigureKeys[1], kLoadFigureKeys[2]};
    for (const auto& [k, v] : j.items())  // the rest are extra counters (fusion accounting, efficiency)
      if (!known.count(k) && v.is_number()) r.extra[k] = v.get<double>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(where + ": not an arbench case (" + e.what() + ")");
  }
}

nlohmann::json merge_result_json(const std::string& gbench_json, const nlohmann::json& arbench) {
  nlohmann::json doc = gbench_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(gbench_json);
  if (!doc.contains("benchmarks")) doc["benchmarks"] = nlohmann::json::array();
  if (!doc.contains("context")) doc["context"] = nlohmann::json::object();
  doc["arbench"] = arbench;
  return doc;
}

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream o;
  o << v;
  return o.str();
}

std::string optional_number(const std::optional<double>& v) { return v ? csv_number(*v) : ""; }

std::string extra_or_empty(const CaseResult& r, const char* key) {
  const auto it = r.extra.find(key);
  return it == r.extra.end() ? "" : csv_number(it->second);
}

}  // namespace

std::string results_csv(const std::vector<CaseResult>& results, const std::string& backend) {
  std::ostringstream o;
  o << kCsvHeader << "\n";
  for (const auto& r : results) {
    const bool fused = r.c.family == Family::allreduce_rmsnorm;
    o << csv_field(r.c.name()) << ',' << family_name(r.c.family) << ',' << csv_field(r.c.variant) << ','
      << dtype_name(r.c.dtype) << ',' << r.c.world << ',' << r.c.bytes << ',' << r.c.tokens << ',' << r.c.hidden
      << ',' << (r.c.in_place ? "true" : "false") << ',' << backend << ',' << (r.ok ? "ok" : "failed") << ','
      << csv_field(r.reason) << ',';
    // A failed case has no timings: empty cells, never a 0 a spreadsheet would rank fastest.
    if (r.ok) {
      o << csv_number(r.latency_us.median) << ',' << csv_number(r.latency_us.p10) << ','
        << csv_number(r.latency_us.p90) << ',' << csv_number(r.latency_us.p99) << ','
        << (r.pipelined_us >= 0 ? csv_number(r.pipelined_us) : "") << ',' << csv_number(r.algbw_gbps) << ','
        << csv_number(r.busbw_gbps) << ',';
    } else {
      o << ",,,,,,,";
    }
    const bool noise_known = r.ok && r.median_ci_us.known && std::isfinite(r.median_ci_us.noise);
    o << r.samples_us.size() << ',' << (noise_known ? csv_number(r.median_ci_us.noise * 100) : "") << ','
      << r.wrong_elements << ',' << (fused ? csv_number(r.max_ulp_error) : "") << ','
      << extra_or_empty(r, kSpeedupCounter) << ',' << extra_or_empty(r, kSavedCounter) << ','
      << (r.device && r.device->abnormal() ? csv_field(device_marker(*r.device)) : "") << ','
      << optional_number(r.max_abs_err) << ',' << optional_number(r.rms_rel_err) << ','
      << (r.sol ? csv_number(r.sol->sol_us) : "") << ',' << optional_number(pct_of_sol(r)) << ','
      << load_figures_csv(r) << '\n';
  }
  return o.str();
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) throw UsageError("cannot write " + path + " (temporary " + tmp + " could not be created)");
    f << content;
    f.flush();
    if (!f) throw UsageError("writing " + tmp + " failed (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw UsageError("cannot write " + path + " (rename from " + tmp + " failed)");
  }
}

namespace {

void need(std::vector<std::string>& problems, const nlohmann::json& obj, const std::string& where,
          const std::string& key, nlohmann::json::value_t type) {
  using V = nlohmann::json::value_t;
  if (!obj.is_object() || !obj.contains(key)) {
    problems.push_back(where + ": missing '" + key + "'");
    return;
  }
  const auto t = obj.at(key).type();
  const bool number_ok = (type == V::number_float || type == V::number_unsigned || type == V::number_integer) &&
                         obj.at(key).is_number();
  if (t != type && !number_ok) problems.push_back(where + ": '" + key + "' has the wrong type");
}

}  // namespace

std::vector<std::string> validate_result_json(const nlohmann::json& doc) {
  using V = nlohmann::json::value_t;
  std::vector<std::string> p;
  need(p, doc, "document", "context", V::object);
  need(p, doc, "document", "benchmarks", V::array);
  need(p, doc, "document", "arbench", V::object);
  if (!p.empty()) return p;
  for (const auto& b : doc["benchmarks"]) {
    const std::string w = "benchmark " + b.value("name", std::string("?"));
    need(p, b, w, "name", V::string);
    need(p, b, w, "run_type", V::string);
    need(p, b, w, "time_unit", V::string);
    if (!b.value("error_occurred", false)) {
      for (const char* k : {"real_time", "cpu_time", "algbw_GBps", "busbw_GBps", "p10_us", "p50_us", "p90_us",
                            "p99_us", "samples", "wrong_elements"})
        need(p, b, w, k, V::number_float);
    }
  }
  const auto& a = doc["arbench"];
  need(p, a, "arbench", "schema_version", V::number_integer);
  need(p, a, "arbench", "provenance", V::object);
  need(p, a, "arbench", "config", V::object);
  need(p, a, "arbench", "cases", V::array);
  need(p, a, "arbench", "skipped", V::array);
  if (!p.empty()) return p;
  if (a["schema_version"] != kSchemaVersion) p.push_back("arbench: schema_version is not " + std::to_string(kSchemaVersion));
  for (const char* k : {"arbench_version", "arbench_revision", "command_line", "backend", "timing", "driver",
                        "cuda_runtime", "nccl_version", "host_name", "cpu_model", "fingerprint"})
    need(p, a["provenance"], "provenance", k, V::string);
  need(p, a["provenance"], "provenance", "gpus", V::array);
  need(p, a["provenance"], "provenance", "nccl_env", V::object);
  need(p, a["provenance"], "provenance", "fingerprint_fields", V::object);
  for (const auto& c : a["cases"]) {
    const std::string w = "case " + c.value("name", std::string("?"));
    for (const char* k : {"name", "variant", "family", "dtype", "status", "reason"}) need(p, c, w, k, V::string);
    for (const char* k : {"world", "bytes", "median_us", "p10_us", "p90_us", "p99_us", "algbw_GBps", "busbw_GBps",
                          "wrong_elements"})
      need(p, c, w, k, V::number_float);
    need(p, c, w, "samples_us", V::array);
    need(p, c, w, "settings", V::object);
    // Start-gate figures (optional: files written before they existed lack them; null: not measured).
    for (const char* k : {"start_skew_us", "floor_us", "discarded_samples"})
      if (c.contains(k) && !(c.at(k).is_number() || c.at(k).is_null())) p.push_back(w + ": '" + k + "' is not a number");
    // The clocks behind the skew, and the data path (optional: older files lack them).
    if (c.contains("clock_sync")) {
      need(p, c, w, "clock_sync", V::object);
      if (c.at("clock_sync").is_object()) {
        need(p, c.at("clock_sync"), w + " clock_sync", "method", V::string);
        need(p, c.at("clock_sync"), w + " clock_sync", "error_bound_us", V::number_float);
      }
    }
    if (c.contains("data_path") && !c.at("data_path").is_string()) p.push_back(w + ": 'data_path' is not a string");
    // A lossy variant's error figures (optional: exact variants and older files lack them).
    for (const char* k : {"max_abs_err", "rms_rel_err"})
      if (c.contains(k) && !c.at(k).is_null() && !(c.at(k).is_number() && c.at(k).get<double>() >= 0))
        p.push_back(w + ": '" + k + "' is not a non-negative number or null");
    // The speed-of-light floor (optional: older files and runs without floors lack it).
    if (c.contains("sol_us") && !(c.at("sol_us").is_number() && c.at("sol_us").get<double>() >= 0))
      p.push_back(w + ": 'sol_us' is not a non-negative number");
    if (c.contains("pct_of_sol") && !(c.at("pct_of_sol").is_number() || c.at("pct_of_sol").is_null()))
      p.push_back(w + ": 'pct_of_sol' is not a number or null");
    if (c.contains("sol") && !(c.at("sol").is_object() && (c.at("sol").contains("none") || c.contains("sol_us"))))
      p.push_back(w + ": 'sol' is not an object with 'none', or beside 'sol_us'");
    // Arrival skew and phase timeline (optional: only newer files, only some cases have a timeline).
    if (c.contains("skew_us") && !c.at("skew_us").is_number()) p.push_back(w + ": 'skew_us' is not a number");
    // Cache state, sampling and device state (optional: older files lack them; null: not known).
    if (c.contains("cache") && !(c.at("cache") == "hot" || c.at("cache") == "cold"))
      p.push_back(w + ": 'cache' is not \"hot\" or \"cold\"");
    // The symmetric-memory provider (optional: cuda-backend cases with symmetric memory only).
    if (c.contains("symm_mem") && !(c.at("symm_mem") == "cuda" || c.at("symm_mem") == "nccl"))
      p.push_back(w + ": 'symm_mem' is not \"cuda\" or \"nccl\"");
    if (c.contains("noise") && !(c.at("noise").is_number() || c.at("noise").is_null()))
      p.push_back(w + ": 'noise' is not a number or null");
    if (c.contains("median_ci_us") && !c.at("median_ci_us").is_null()) {
      const auto& ci = c.at("median_ci_us");
      if (!ci.is_array() || ci.size() != 2 || !ci[0].is_number() || !ci[1].is_number())
        p.push_back(w + ": 'median_ci_us' is not [lower, upper] or null");
    }
    if (c.contains("sampling")) {
      need(p, c, w, "sampling", V::object);
      if (c.at("sampling").is_object()) {
        need(p, c.at("sampling"), w + " sampling", "stop", V::string);
        need(p, c.at("sampling"), w + " sampling", "time_s", V::number_float);
      }
    }
    if (c.contains("device_state")) {
      try {
        device_state_from_json(c.at("device_state"), w + " device_state");
      } catch (const UsageError& e) {
        p.push_back(e.what());
      } catch (const nlohmann::json::exception& e) {
        p.push_back(w + " device_state: " + e.what());
      }
    }
    validate_load_figures(c, w, p);
    if (c.contains("phases")) {
      const auto& ph = c.at("phases");
      need(p, ph, w + " phases", "breakdown_us", V::object);
      need(p, ph, w + " phases", "ranks", V::array);
      need(p, ph, w + " phases", "marks", V::array);
      for (const char* k : {"span_us", "latency_us", "after_last_arrival_us", "resolution_ns"})
        need(p, ph, w + " phases", k, V::number_float);
    }
  }
  for (const auto& s : a["skipped"]) {
    need(p, s, "skipped", "name", V::string);
    need(p, s, "skipped", "reason", V::string);
  }
  if (a.contains("incomplete")) {  // a run stopped early: the finished cases, and why
    need(p, a, "arbench", "incomplete", V::object);
    need(p, a["incomplete"], "incomplete", "reason", V::string);
    need(p, a["incomplete"], "incomplete", "cases_planned", V::number_integer);
    need(p, a["incomplete"], "incomplete", "cases_run", V::number_integer);
    need(p, a["incomplete"], "incomplete", "not_run", V::array);
    if (p.empty() && a["incomplete"]["cases_run"] != a["cases"].size())
      p.push_back("incomplete: cases_run is not the number of cases");
  }
  return p;
}

}  // namespace arbench
