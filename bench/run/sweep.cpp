#include "run/sweep.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>

#include "arbench/core/errors.hpp"
#include "run/sizes.hpp"

namespace arbench {

std::vector<std::size_t> size_series(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                     std::size_t elem) {
  std::vector<std::size_t> out;
  double s = double(min_bytes);
  while (s <= double(max_bytes) * (1 + 1e-12)) {
    std::size_t b = static_cast<std::size_t>(s) / elem * elem;
    if (b > 0 && (out.empty() || out.back() != b)) out.push_back(b);
    s *= factor;
  }
  return out;
}

std::vector<std::string> select_variants(const Registry& reg, const std::vector<std::string>& patterns,
                                         Family family) {
  std::vector<std::string> out;
  auto add = [&](const std::string& n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  if (patterns.empty()) {
    for (const auto& e : reg.entries())
      if (e.family == family) add(e.name);
    return out;
  }
  for (const auto& p : patterns) {
    for (const auto& e : reg.entries()) {
      if (e.family != family) continue;
      if (fnmatch(p.c_str(), e.name.c_str(), 0) == 0) add(e.name);
      // Configurations (`nccl[ring/ll]`) are matched literally: brackets are glob syntax.
      for (const auto& c : e.configs) {
        const std::string full = e.name + "[" + c + "]";
        if (p == full) add(full);
      }
    }
  }
  return out;
}

namespace {

void check_patterns(const Registry& reg, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns) {
    bool any = reg.find(p) != nullptr;
    for (const auto& e : reg.entries()) any = any || fnmatch(p.c_str(), e.name.c_str(), 0) == 0;
    if (!any) {
      std::string names;
      for (const auto& e : reg.entries()) names += (names.empty() ? "" : ", ") + e.name;
      throw UsageError("unknown variant '" + p + "'; known variants: " + names);
    }
  }
}

}  // namespace

Sweep expand_sweep(const RunConfig& cfg, const Registry& reg, Backend backend) {
  const std::size_t min_b = cfg.min_bytes.value_or(1024), max_b = cfg.max_bytes.value_or(min_b);
  if (min_b == 0) throw UsageError("--min-bytes must be > 0");
  if (min_b > max_b)
    throw UsageError("--min-bytes " + format_size(min_b) + " is larger than --max-bytes " + format_size(max_b));
  if (!(cfg.step_factor > 1.0))
    throw UsageError("--step-factor must be > 1, got " + std::to_string(cfg.step_factor));
  check_patterns(reg, cfg.variants);

  Sweep sw;
  auto place = [&](Case c) {
    std::string why = reg.unavailable_reason(c.variant, backend);
    if (why.empty())
      sw.cases.push_back(std::move(c));
    else
      sw.skipped.push_back({std::move(c), why});
  };
  auto place_skewed = [&](Case c) {  // one case per --skew value, in the order given
    c.cold_cache = cfg.cold_cache;
    for (double skew : cfg.skews_us) {
      c.skew_us = skew;
      place(c);
    }
  };
  for (Family fam : cfg.families) {
    auto names = select_variants(reg, cfg.variants, fam);
    for (const auto& v : names)
      for (DType t : cfg.dtypes) {
        const std::size_t es = dtype_size(t);
        if (fam == Family::allreduce) {
          for (std::size_t b : {min_b, max_b})
            if (b % es != 0)
              throw UsageError("size " + std::to_string(b) + " bytes is not a multiple of the " +
                               std::string(dtype_name(t)) + " element size (" + std::to_string(es) + " bytes)");
        }
        for (int w : cfg.gpus) {
          if (fam == Family::allreduce) {
            for (std::size_t b : size_series(min_b, max_b, cfg.step_factor, es))
              place_skewed(Case{v, fam, t, w, b, 0, 0, cfg.in_place});
          } else {
            for (int tok : cfg.tokens) {
              if (tok < 1) throw UsageError("--tokens: " + std::to_string(tok) + " must be >= 1");
              if (cfg.hidden < 1) throw UsageError("--hidden must be >= 1");
              place_skewed(Case{v, fam, t, w, std::size_t(tok) * std::size_t(cfg.hidden) * es, tok, cfg.hidden, false});
            }
          }
        }
      }
  }
  if (sw.cases.empty() && sw.skipped.empty())
    throw UsageError("the sweep is empty: no variant of the selected families matches --variants");
  return sw;
}

}  // namespace arbench
