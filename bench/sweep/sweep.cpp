#include "sweep/sweep.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "arbench/core/errors.hpp"
#include "sweep/sizes.hpp"

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
      throw UsageError("--variants: unknown variant '" + p + "'; known variants: " + names);
    }
  }
}

}  // namespace

std::size_t filter_sweep(Sweep& sweep, const std::string& filter) {
  if (filter.empty() || filter == "all") return 0;  // Google Benchmark's "everything"
  const bool negate = filter.front() == '-';
  const std::string pattern = negate ? filter.substr(1) : filter;
  std::regex re;
  try {
    re = std::regex(pattern, std::regex::extended | std::regex::nosubs);
  } catch (const std::regex_error& e) {
    throw UsageError("--benchmark_filter=" + filter + " is not a valid extended regular expression (" +
                     e.what() + ")");
  }
  const std::size_t before = sweep.cases.size() + sweep.skipped.size();
  const auto drop = [&](const Case& c) { return std::regex_search(c.name(), re) == negate; };
  std::erase_if(sweep.cases, drop);
  std::erase_if(sweep.skipped, [&](const SkippedCase& s) { return drop(s.c); });
  const std::size_t dropped = before - sweep.cases.size() - sweep.skipped.size();
  if (sweep.cases.empty() && sweep.skipped.empty())
    throw UsageError("--benchmark_filter=" + filter + " matches none of the " + std::to_string(before) +
                     " cases of the sweep (case names look like allreduce/ring/bf16/gpus:8/bytes:1024; "
                     "`arbench list` prints them all)");
  return dropped;
}

Sweep expand_sweep(const RunConfig& cfg, const Registry& reg, Backend backend) {
  const std::size_t min_b = cfg.min_bytes.value_or(1024), max_b = cfg.max_bytes.value_or(min_b);
  if (min_b == 0) throw UsageError("--min-bytes 0: the smallest message must be > 0 bytes (e.g. -b 1K)");
  if (max_b == 0) throw UsageError("--max-bytes 0: the largest message must be > 0 bytes (e.g. -e 1M)");
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
  // --symm-mem all on the cuda backend: every custom kernel once per symmetric-memory provider,
  // a case each (.../symm:cuda, .../symm:nccl); the NCCL variants run on NCCL's memory only.
  std::map<std::string, bool> custom;
  const auto providers_of = [&](const std::string& v) -> std::vector<std::string> {
    if (backend != Backend::cuda || cfg.symm_mem != "all") return {""};
    auto it = custom.find(v);
    if (it == custom.end())
      it = custom.emplace(v, reg.unavailable_reason(v, backend).empty() && !reg.make(v, backend)->needs_nccl()).first;
    return it->second ? std::vector<std::string>{"cuda", "nccl"} : std::vector<std::string>{""};
  };
  auto place_skewed = [&](Case c) {  // one case per provider and --skew value, in the order given
    c.cold_cache = cfg.cold_cache;
    for (const std::string& provider : providers_of(c.variant)) {
      c.symm = provider;
      for (double skew : cfg.skews_us) {
        c.skew_us = skew;
        place(c);
      }
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
              const int hidden = cfg.hidden.value_or(0);
              if (hidden < 1) throw UsageError("--hidden " + std::to_string(hidden) + " must be >= 1");
              place_skewed(Case{v, fam, t, w, std::size_t(tok) * std::size_t(hidden) * es, tok, hidden, false});
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
