// Loading and validating result JSON (arbench or plain Google Benchmark); see result_file.hpp.
// Every rejection names the file, the JSON path and what was found, so a truncated upload or a
// file from a newer arbench is obvious from the message alone.
#include "results/result_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "arbench/core/case.hpp"
#include "arbench/core/errors.hpp"
#include "io/input_file.hpp"
#include "results/machine_stack.hpp"
#include "results/stats/stats.hpp"

namespace arbench {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& label, const std::string& what) {
  throw UsageError(label + ": " + what);
}

const json& member(const json& obj, const char* key, json::value_t type, const std::string& label,
                   const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end())
    fail(label, (where.empty() ? std::string("the top level") : where) + " has no \"" + key + "\"");
  const bool ok = it->type() == type ||
                  (type == json::value_t::number_float && it->is_number()) ||
                  (type == json::value_t::number_unsigned && it->is_number_integer() &&
                   it->get<std::int64_t>() >= 0);
  if (!ok) {
    const std::string path = (where.empty() ? "" : where + ".") + key;
    fail(label, path + " is " + it->dump().substr(0, 40) + " (" + it->type_name() +
                    "), expected " + json(type).type_name());
  }
  return *it;
}

std::string opt_string(const json& obj, const char* key, const std::string& label,
                       const std::string& where) {
  if (!obj.contains(key) || obj.at(key).is_null()) return {};
  return member(obj, key, json::value_t::string, label, where).get<std::string>();
}

template <class T>
T opt_number(const json& obj, const char* key, T fallback, const std::string& label,
             const std::string& where) {
  if (!obj.contains(key) || obj.at(key).is_null()) return fallback;
  return member(obj, key, json::value_t::number_float, label, where).get<T>();
}

double to_microseconds(double value, const std::string& unit, const std::string& label,
                       const std::string& where) {
  if (unit == "ns") return value / 1e3;
  if (unit == "us") return value;
  if (unit == "ms") return value * 1e3;
  if (unit == "s") return value * 1e6;
  fail(label, where + ".time_unit is \"" + unit + "\", expected ns, us, ms or s");
}

void parse_provenance(const json& prov, ResultFile& r, const std::string& label) {
  const std::string where = "arbench.provenance";
  if (!prov.is_object()) fail(label, where + " is a " + prov.type_name() + ", expected an object");
  r.backend = opt_string(prov, "backend", label, where);
  r.timing = opt_string(prov, "timing", label, where);
  r.revision = opt_string(prov, "arbench_revision", label, where);
  r.fingerprint = opt_string(prov, "fingerprint", label, where);
  if (prov.contains("fingerprint_fields")) {
    const json& f = member(prov, "fingerprint_fields", json::value_t::object, label, where);
    for (const auto& [key, value] : f.items())
      r.fingerprint_fields[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  if (prov.contains("machine") && !prov.at("machine").is_null())
    member(prov, "machine", json::value_t::object, label, where);
  if (prov.contains("stack") && !prov.at("stack").is_null()) member(prov, "stack", json::value_t::object, label, where);
  r.machine_fields = machine_fields_of(prov);
  r.machine_id = machine_id(r.machine_fields);
  r.stack = stack_of(prov);
  r.migrated = !prov.contains("machine") && !r.machine_fields.empty();
  r.cpu_model = opt_string(prov, "cpu_model", label, where);
  r.cuda_driver = opt_string(prov, "driver", label, where);
  r.nccl_version = opt_string(prov, "nccl_version", label, where);
  if (prov.contains("gpus") && !prov.at("gpus").is_null()) {
    const json& gpus = member(prov, "gpus", json::value_t::array, label, where);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const std::string at = where + ".gpus[" + std::to_string(i) + "]";
      if (!gpus[i].is_object()) fail(label, at + " is a " + gpus[i].type_name() + ", expected an object");
      r.gpus.push_back({opt_string(gpus[i], "name", label, at), opt_string(gpus[i], "cc", label, at)});
    }
  }
  if (prov.contains("nccl_env") && prov.at("nccl_env").is_object())
    for (const auto& [key, value] : prov.at("nccl_env").items())
      r.nccl_env[key] = value.is_string() ? value.get<std::string>() : value.dump();
  if (prov.contains("launch") && prov.at("launch").is_object())
    r.nodes = std::max(1, opt_number(prov.at("launch"), "nodes", 1, label, where + ".launch"));
  if (prov.contains("nccl_libraries") && !prov.at("nccl_libraries").is_null()) {
    const json& libs = member(prov, "nccl_libraries", json::value_t::array, label, where);
    for (std::size_t i = 0; i < libs.size(); ++i) {
      const std::string at = where + ".nccl_libraries[" + std::to_string(i) + "]";
      if (!libs[i].is_object()) fail(label, at + " is a " + libs[i].type_name() + ", expected an object");
      r.nccl_libraries.push_back({opt_string(libs[i], "variant", label, at), opt_string(libs[i], "label", label, at),
                                  opt_string(libs[i], "version", label, at), opt_string(libs[i], "path", label, at)});
    }
  }
  if (prov.contains("box_findings") && prov.at("box_findings").is_object() &&
      prov.at("box_findings").contains("pull_beats_push") && prov.at("box_findings").at("pull_beats_push").is_boolean())
    r.pull_beats_push = prov.at("box_findings").at("pull_beats_push").get<bool>();
  if (prov.contains("nvlink_all_pairs") && !prov.at("nvlink_all_pairs").is_null()) {
    const json& nv = member(prov, "nvlink_all_pairs", json::value_t::object, label, where);
    for (const auto& [world, all] : nv.items()) {
      const std::optional<std::uint64_t> w = world.empty() || world.size() > 6 ||
                                                     world.find_first_not_of("0123456789") != std::string::npos
                                                 ? std::nullopt
                                                 : std::optional<std::uint64_t>(std::stoull(world));
      if (!w || !all.is_boolean())
        fail(label, where + ".nvlink_all_pairs has \"" + world + "\": " + all.dump().substr(0, 20) +
                        ", expected a GPU count and true or false");
      r.all_nvlink[int(*w)] = all.get<bool>();
    }
  }
}

ResultCase parse_arbench_case(const json& c, std::size_t index, const std::string& label) {
  std::string where = "arbench.cases[" + std::to_string(index) + "]";
  if (!c.is_object()) fail(label, where + " is a " + c.type_name() + ", expected an object");
  ResultCase rc;
  rc.name = member(c, "name", json::value_t::string, label, where).get<std::string>();
  where += " (" + rc.name + ")";
  const std::string status = opt_string(c, "status", label, where);
  if (!status.empty() && status != "ok" && status != "failed")
    fail(label, where + ".status is \"" + status + "\", expected \"ok\" or \"failed\"");
  rc.ok = status != "failed";
  rc.reason = opt_string(c, "reason", label, where);
  const json& samples = member(c, "samples_us", json::value_t::array, label, where);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const json& s = samples[i];
    if (!s.is_number() || !std::isfinite(s.get<double>()) || s.get<double>() < 0)
      fail(label, where + ".samples_us[" + std::to_string(i) + "] is " + s.dump() +
                      ", expected a non-negative number of microseconds");
    rc.samples_us.push_back(s.get<double>());
  }
  if (rc.ok && rc.samples_us.empty())
    fail(label, where + " has status \"ok\" but no samples_us; the file is incomplete");
  rc.median_us = opt_number(c, "median_us", median_of(rc.samples_us), label, where);
  rc.busbw_gbps = opt_number(c, "busbw_GBps", 0.0, label, where);
  parse_case_name(rc.name, rc);  // shape from the name first; explicit fields win below
  if (c.contains("family")) rc.family = opt_string(c, "family", label, where);
  if (c.contains("variant")) rc.variant = opt_string(c, "variant", label, where);
  if (c.contains("dtype")) rc.dtype = opt_string(c, "dtype", label, where);
  rc.world = opt_number(c, "world", rc.world, label, where);
  rc.bytes = opt_number(c, "bytes", rc.bytes, label, where);
  rc.tokens = opt_number(c, "tokens", rc.tokens, label, where);
  rc.hidden = opt_number(c, "hidden", rc.hidden, label, where);
  if (c.contains("in_place") && c.at("in_place").is_boolean())
    rc.in_place = c.at("in_place").get<bool>();
  if (c.contains("median_ci_us") && !c.at("median_ci_us").is_null()) {
    const json& ci = c.at("median_ci_us");
    if (!ci.is_array() || ci.size() != 2 || !ci[0].is_number() || !ci[1].is_number() ||
        !(ci[0].get<double>() <= ci[1].get<double>()))
      fail(label, where + ".median_ci_us is " + ci.dump().substr(0, 40) + ", expected [lower, upper] microseconds");
    MedianInterval m;
    m.known = true;
    m.lower = ci[0].get<double>();
    m.upper = ci[1].get<double>();
    m.median = rc.median_us;
    m.noise = opt_number(c, "noise", rc.median_us > 0 ? (m.upper - m.lower) / rc.median_us : 0.0, label, where);
    rc.median_ci = m;
  }
  for (auto [key, field] : {std::pair{"max_abs_err", &rc.max_abs_err}, std::pair{"rms_rel_err", &rc.rms_rel_err}}) {
    if (!c.contains(key) || c.at(key).is_null()) continue;  // exact variant, older file, or not finite
    const json& v = c.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      fail(label, where + "." + key + " is " + v.dump().substr(0, 40) +
                      ", expected a non-negative number (a lossy variant's error) or null");
    *field = v.get<double>();
  }
  if (c.contains("sms") && !c.at("sms").is_null()) {
    const json& v = c.at("sms");
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 1 << 20)
      fail(label, where + ".sms is " + v.dump().substr(0, 40) + ", expected the SMs one op takes (a count) or null");
    rc.sms = v.get<int>();
  }
  if (c.contains("sol_us") && !c.at("sol_us").is_null()) {
    const json& v = c.at("sol_us");
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      fail(label, where + ".sol_us is " + v.dump().substr(0, 40) + ", expected a non-negative number (the case's floor)");
    rc.sol_us = v.get<double>();
  }
  if (c.contains("device_state") && !c.at("device_state").is_null())
    rc.device = device_state_from_json(c.at("device_state"), label + ": " + where + ".device_state");
  if (c.contains("settings") && c.at("settings").is_object()) {
    const nlohmann::json& s = c.at("settings");
    auto text = [&](const char* key) { return s.contains(key) && s.at(key).is_string() ? s.at(key).get<std::string>() : std::string(); };
    rc.islands = text("islands");
    rc.nccl_channels_clamped = text("nccl_channels_clamped");
    if (const std::string symm = text("nccl_symm_kernels"); symm.rfind("off", 0) == 0) rc.nccl_symm_kernels_off = symm;
  }
  return rc;
}

void parse_arbench(const json& j, ResultFile& r, const std::string& label) {
  const json& ab = j.at("arbench");
  if (!ab.is_object()) fail(label, std::string("\"arbench\" is a ") + ab.type_name() +
                                       ", expected an object");
  const json& version = member(ab, "schema_version", json::value_t::number_unsigned, label,
                               "arbench");
  if (version.get<std::int64_t>() != kResultSchemaVersion)
    fail(label, "arbench.schema_version is " + version.dump() + ", this arbench reads version " +
                    std::to_string(kResultSchemaVersion) +
                    "; use the arbench release that wrote the file, or rerun the benchmark");
  if (ab.contains("provenance")) parse_provenance(ab.at("provenance"), r, label);
  if (ab.contains("incomplete") && !ab.at("incomplete").is_null()) {
    const json& inc = ab.at("incomplete");
    if (!inc.is_object()) fail(label, std::string("arbench.incomplete is a ") + inc.type_name() + ", expected an object");
    IncompleteRun i;
    i.reason = opt_string(inc, "reason", label, "arbench.incomplete");
    i.cases_planned = opt_number<std::size_t>(inc, "cases_planned", 0, label, "arbench.incomplete");
    i.cases_run = opt_number<std::size_t>(inc, "cases_run", 0, label, "arbench.incomplete");
    r.incomplete = i;
  }
  const json& cases = member(ab, "cases", json::value_t::array, label, "arbench");
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    ResultCase rc = parse_arbench_case(cases[i], i, label);
    if (!seen.emplace(rc.name, i).second)
      fail(label, "arbench.cases[" + std::to_string(i) + "] repeats the name \"" + rc.name +
                      "\" of arbench.cases[" + std::to_string(seen[rc.name]) + "]");
    r.cases.push_back(std::move(rc));
  }
}

void parse_plain(const json& j, ResultFile& r, const std::string& label) {
  const json& benchmarks = member(j, "benchmarks", json::value_t::array, label, "");
  std::unordered_map<std::string, std::size_t> index;  // run_name -> position in r.cases
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const json& b = benchmarks[i];
    const std::string where = "benchmarks[" + std::to_string(i) + "]";
    if (!b.is_object()) fail(label, where + " is a " + b.type_name() + ", expected an object");
    const std::string name =
        member(b, "name", json::value_t::string, label, where).get<std::string>();
    // Aggregates (_mean, _median, _stddev, _cv, BigO) summarise the repetitions we already use.
    if (opt_string(b, "run_type", label, where) == "aggregate") continue;
    std::string key = opt_string(b, "run_name", label, where);
    if (key.empty()) key = name;
    auto [it, inserted] = index.emplace(key, r.cases.size());
    if (inserted) {
      ResultCase rc;
      rc.name = key;
      parse_case_name(key, rc);
      r.cases.push_back(std::move(rc));
    }
    ResultCase& rc = r.cases[it->second];
    if (b.contains("error_occurred") && b.at("error_occurred").is_boolean() &&
        b.at("error_occurred").get<bool>()) {
      rc.ok = false;
      rc.reason = opt_string(b, "error_message", label, where);
      continue;
    }
    const double t =
        member(b, "real_time", json::value_t::number_float, label, where).get<double>();
    std::string unit = opt_string(b, "time_unit", label, where);
    rc.samples_us.push_back(to_microseconds(t, unit.empty() ? "ns" : unit, label, where));
  }
  for (ResultCase& rc : r.cases) {
    if (rc.samples_us.empty()) rc.ok = false;  // every repetition errored
    rc.median_us = median_of(rc.samples_us);
  }
}

}  // namespace

bool parse_case_name(const std::string& name, ResultCase& c) {
  const std::optional<Case> parsed = Case::parse(name);
  if (!parsed) return false;
  c.family = family_name(parsed->family);
  c.variant = parsed->variant;
  c.dtype = dtype_name(parsed->dtype);
  c.world = parsed->world;
  c.bytes = parsed->bytes;
  c.tokens = parsed->tokens;
  c.hidden = parsed->hidden;
  c.in_place = parsed->in_place;
  c.cold_cache = parsed->cold_cache;
  c.skew_us = parsed->skew_us;
  return true;
}

ResultFile parse_result_json(const json& j, const std::string& label) {
  ResultFile r;
  r.path = label;
  if (!j.is_object())
    fail(label, std::string("the top level is a ") + j.type_name() +
                    ", expected an object with \"benchmarks\" (Google Benchmark JSON)");
  if (j.contains("arbench")) {
    r.is_arbench = true;
    parse_arbench(j, r, label);
  } else if (j.contains("benchmarks")) {
    parse_plain(j, r, label);
  } else {
    throw UsageError(wrong_document(label, j, kResultExpected,
                                    "no \"benchmarks\" array and no \"arbench\" object: not an arbench or Google "
                                    "Benchmark result (arbench run writes one; so does any Google Benchmark "
                                    "binary given --benchmark_format=json)"));
  }
  return r;
}

ResultFile load_result_file(const std::string& path) {
  return parse_result_json(read_json_input(path, kResultExpected), path);
}

std::string incomplete_note(const ResultFile& r) {
  if (!r.incomplete) return {};
  return r.path + " is incomplete: " + (r.incomplete->reason.empty() ? "the run stopped early" : r.incomplete->reason) +
         "; " + std::to_string(r.incomplete->cases_run) + " of " + std::to_string(r.incomplete->cases_planned) +
         " planned cases were run (arbench.incomplete), so cases the full sweep has are missing from it";
}

}  // namespace arbench
