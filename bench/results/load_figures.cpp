#include "results/load_figures.hpp"

#include <cmath>
#include <sstream>

namespace arbench {
namespace {

nlohmann::json number_or_null(double v) { return v >= 0 && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

double number_or(const nlohmann::json& j, const char* k, double fallback) {
  return j.contains(k) && j.at(k).is_number() ? j.at(k).get<double>() : fallback;
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream o;
  o << v;
  return o.str();
}

}  // namespace

void load_figures_to_json(const CaseResult& r, nlohmann::json& j) {
  j["sms"] = r.sms.known() ? nlohmann::json(r.sms.ctas) : nlohmann::json();
  j["sms_basis"] = r.sms.basis;
  if (!r.beside) return;
  const BesideFigures& b = *r.beside;
  j["beside"] = {{"load", b.load},
                 {"timing", b.timing},
                 {"samples_us", b.samples_us},
                 {"median_us", b.latency_us.median},
                 {"p10_us", b.latency_us.p10},
                 {"p90_us", b.latency_us.p90},
                 {"background_item_us", number_or_null(b.item_us)},
                 {"background_alone_per_s", number_or_null(b.alone_per_s)},
                 {"background_with_case_per_s", number_or_null(b.with_case_per_s)},
                 {"background_slowdown", std::isfinite(b.slowdown()) && b.alone_per_s > 0
                                             ? nlohmann::json(b.slowdown())
                                             : nlohmann::json()}};
}

void load_figures_from_json(const nlohmann::json& j, CaseResult& r) {
  r.sms = SmUse{};
  if (j.contains("sms") && j.at("sms").is_number_integer()) r.sms.ctas = j.at("sms").get<int>();
  r.sms.basis = j.value("sms_basis", std::string());
  if (!j.contains("beside") || !j.at("beside").is_object()) return;
  const nlohmann::json& b = j.at("beside");
  BesideFigures f;
  f.load = b.value("load", std::string());
  f.timing = b.value("timing", std::string());
  f.samples_us = b.value("samples_us", std::vector<double>{});
  f.latency_us = summarize(f.samples_us);
  f.latency_us.median = number_or(b, "median_us", f.latency_us.median);
  f.item_us = number_or(b, "background_item_us", -1);
  f.alone_per_s = number_or(b, "background_alone_per_s", -1);
  f.with_case_per_s = number_or(b, "background_with_case_per_s", -1);
  r.beside = f;
}

void validate_load_figures(const nlohmann::json& c, const std::string& w, std::vector<std::string>& p) {
  // Optional: files written before the figures existed lack them; null: unknown.
  if (c.contains("sms") && !(c.at("sms").is_null() || (c.at("sms").is_number_integer() && c.at("sms").get<long long>() >= 0)))
    p.push_back(w + ": 'sms' is not a non-negative integer or null");
  if (c.contains("sms_basis") && !c.at("sms_basis").is_string()) p.push_back(w + ": 'sms_basis' is not a string");
  if (!c.contains("beside")) return;
  const nlohmann::json& b = c.at("beside");
  if (!b.is_object()) {
    p.push_back(w + ": 'beside' is not an object");
    return;
  }
  for (const char* k : {"load", "timing"})
    if (!b.contains(k) || !b.at(k).is_string()) p.push_back(w + " beside: '" + k + "' is not a string");
  if (!b.contains("median_us") || !b.at("median_us").is_number()) p.push_back(w + " beside: 'median_us' is not a number");
  for (const char* k : {"background_item_us", "background_alone_per_s", "background_with_case_per_s", "background_slowdown"})
    if (!b.contains(k) || !(b.at(k).is_number() || b.at(k).is_null()))
      p.push_back(w + " beside: '" + k + "' is not a number or null");
}

std::string load_figures_csv(const CaseResult& r) {
  std::string s = r.sms.known() ? std::to_string(r.sms.ctas) : "";
  s += ',';
  if (r.ok && r.beside) {
    s += csv_number(r.beside->latency_us.median) + ',';
    if (r.beside->alone_per_s > 0) s += csv_number(r.beside->slowdown());
  } else {
    s += ',';
  }
  return s;
}

}  // namespace arbench
