#include "results/fusion_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

namespace arbench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Settings keys written by the unfused variants (kernels/fused/fused_variant.hpp kAllreduceOnlyKey,
// kNormOnlyKey; tests/host/results/test_fusion_summary.cpp checks they agree).
constexpr const char* kAllreduceOnly = "allreduce_only_us";
constexpr const char* kNormOnly = "norm_only_us";

double setting(const CaseResult& r, const char* key) {
  for (const auto& [k, v] : r.settings)
    if (k == key) {
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      return end != v.c_str() && d >= 0 ? d : kNaN;
    }
  return kNaN;
}

bool same_shape(const FusionRow& row, const Case& c) {
  return row.dtype == c.dtype && row.world == c.world && row.tokens == c.tokens && row.hidden == c.hidden &&
         row.skew_us == c.skew_us && row.cold_cache == c.cold_cache;
}

// NaN-aware minimum: the other value when one is NaN.
double min_of(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : std::min(a, b); }

void add_result(FusionRow& row, const CaseResult& r) {
  const double t = r.latency_us.median;
  const std::string& v = r.c.variant;
  if (v == "unfused-nccl") row.unfused_nccl_us = t;
  if (v == "unfused-oneshot") row.unfused_oneshot_us = t;
  if (v == "fused-oneshot") row.fused_oneshot_us = t;
  if (v == "fused-twoshot") row.fused_twoshot_us = t;
}

// `v` in at most `width` characters: 2 decimals, fewer for large values; "-" when unknown.
std::string cell(double v, int width, const char* suffix = "") {
  if (!std::isfinite(v)) return "-";
  char b[48];
  for (int decimals = 2; decimals >= 0; --decimals) {
    std::snprintf(b, sizeof b, "%.*f%s", decimals, v, suffix);
    if (int(std::strlen(b)) <= width) break;
  }
  return b;
}

}  // namespace

FusionRow::FusionRow() : unfused_nccl_us(kNaN), unfused_oneshot_us(kNaN), fused_oneshot_us(kNaN), fused_twoshot_us(kNaN) {}

double FusionRow::best_unfused_us() const { return min_of(unfused_nccl_us, unfused_oneshot_us); }
double FusionRow::speedup(double fused_us) const { return best_unfused_us() / fused_us; }
double FusionRow::saved_us(double fused_us) const { return best_unfused_us() - fused_us; }

std::vector<FusionRow> fusion_rows(const std::vector<CaseResult>& results) {
  std::vector<FusionRow> rows;
  for (const auto& r : results) {
    if (r.c.family != Family::allreduce_rmsnorm || !r.ok) continue;
    FusionRow* row = nullptr;
    for (auto& have : rows)
      if (same_shape(have, r.c)) row = &have;
    if (row == nullptr) {
      rows.emplace_back();
      row = &rows.back();
      row->dtype = r.c.dtype;
      row->world = r.c.world;
      row->tokens = r.c.tokens;
      row->hidden = r.c.hidden;
      row->skew_us = r.c.skew_us;
      row->cold_cache = r.c.cold_cache;
    }
    add_result(*row, r);
  }
  return rows;
}

void add_fusion_counters(CaseResult& r, const std::vector<CaseResult>& others) {
  if (r.c.family != Family::allreduce_rmsnorm || !r.ok) return;
  if (double a = setting(r, kAllreduceOnly); !std::isnan(a)) r.extra[kAllreduceOnly] = a;
  if (double n = setting(r, kNormOnly); !std::isnan(n)) r.extra[kNormOnly] = n;
  // Every fused variant gets the counters; the end-of-run table has columns for the two flat ones.
  if (r.c.variant.rfind("fused-", 0) != 0) return;
  FusionRow row;
  row.dtype = r.c.dtype;
  row.world = r.c.world;
  row.tokens = r.c.tokens;
  row.hidden = r.c.hidden;
  row.skew_us = r.c.skew_us;
  row.cold_cache = r.c.cold_cache;
  for (const auto& o : others)
    if (o.ok && o.c.family == Family::allreduce_rmsnorm && same_shape(row, o.c)) add_result(row, o);
  const double t = r.latency_us.median;
  if (double s = row.speedup(t); std::isfinite(s)) r.extra[kSpeedupCounter] = s;
  if (double s = row.saved_us(t); std::isfinite(s)) r.extra[kSavedCounter] = s;
}

void add_fusion_counters(std::vector<CaseResult>& results) {
  for (auto& r : results) add_fusion_counters(r, results);
}

std::string fusion_summary_table(const std::vector<CaseResult>& results) {
  auto rows = fusion_rows(results);
  if (rows.empty()) return {};
  std::stable_sort(rows.begin(), rows.end(), [](const FusionRow& a, const FusionRow& b) {
    return std::make_pair(a.cold_cache, a.skew_us) < std::make_pair(b.cold_cache, b.skew_us);
  });
  std::ostringstream o;
  o << "\nfusion summary: median isolated latency in us; best unfused = the faster of unfused-nccl and "
       "unfused-oneshot\n  speedup = best unfused / fused, saved = best unfused - fused (speedup > 1 exactly "
       "when saved > 0)\n";
  const char* format = "%-5s %4s %6s %6s  %12s %15s  %13s %7s %8s  %13s %7s %8s\n";
  char line[256];
  std::snprintf(line, sizeof line, format, "dtype", "gpus", "tokens", "hidden", "unfused-nccl", "unfused-oneshot",
                "fused-oneshot", "speedup", "saved", "fused-twoshot", "speedup", "saved");
  o << line;
  bool plain_only = true;
  for (const auto& r : rows) plain_only = plain_only && r.skew_us == 0 && !r.cold_cache;
  std::string group = "-";  // rows of one condition under one heading when any case is skewed or cold
  for (const auto& r : rows) {
    char cond[64];
    std::snprintf(cond, sizeof cond, "%s%s%g us", r.cold_cache ? "cold cache, " : "", "arrival skew ", r.skew_us);
    if (!plain_only && cond != group) {
      o << "  " << cond << ":\n";
      group = cond;
    }
    std::snprintf(line, sizeof line, format, std::string(dtype_name(r.dtype)).c_str(), std::to_string(r.world).c_str(),
                  std::to_string(r.tokens).c_str(), std::to_string(r.hidden).c_str(),
                  cell(r.unfused_nccl_us, 12).c_str(), cell(r.unfused_oneshot_us, 15).c_str(),
                  cell(r.fused_oneshot_us, 13).c_str(), cell(r.speedup(r.fused_oneshot_us), 7, "x").c_str(),
                  cell(r.saved_us(r.fused_oneshot_us), 8).c_str(), cell(r.fused_twoshot_us, 13).c_str(),
                  cell(r.speedup(r.fused_twoshot_us), 7, "x").c_str(), cell(r.saved_us(r.fused_twoshot_us), 8).c_str());
    o << line;
  }
  return o.str();
}

}  // namespace arbench
