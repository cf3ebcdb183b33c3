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
  // A lossy variant (FP8 on the wire) changes the answer, not only the time: it runs only when
  // asked for, by its name or by a pattern that says fp8 (`'*-fp8'`), never in the default sweep
  // nor through a wildcard such as `oneshot-*` (docs/variants.md).
  auto lossy = [](const VariantEntry& e) { return e.lossy; };
  // A peer not built into this arbench (docs/variants.md, "Peers") runs in no default sweep: it
  // could only be skipped. Named, it is listed skipped with why.
  auto unbuilt_peer = [](const VariantEntry& e) { return !e.peer.empty() && !e.gpu; };
  if (patterns.empty()) {
    for (const auto& e : reg.entries())
      if (e.family == family && !lossy(e) && !unbuilt_peer(e)) add(e.name);
    return out;
  }
  for (const auto& p : patterns) {
    const bool wildcard = p.find_first_of("*?[") != std::string::npos;
    for (const auto& e : reg.entries()) {
      if (e.family != family) continue;
      if (fnmatch(p.c_str(), e.name.c_str(), 0) == 0 &&
          (!wildcard || !lossy(e) || p.find("fp8") != std::string::npos))
        add(e.name);
      // Configurations (`nccl[ring/ll]`) are matched literally: brackets are glob syntax.
      for (const auto& c : e.configs) {
        const std::string full = e.name + "[" + c + "]";
        if (p == full) add(full);
      }
      // ... and so are the ones accepted without being listed (`nccl[ring/ll/ch:4]`).
      if (e.accepts_config && p.size() > e.name.size() + 2 && p.rfind(e.name + "[", 0) == 0 && p.back() == ']' &&
          e.accepts_config(p.substr(e.name.size() + 1, p.size() - e.name.size() - 2)))
        add(p);
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

// Each configuration in `names` that takes a channel count (`nccl[ring/ll]`) is followed by one
// name per --nccl-channels value (`nccl[ring/ll/ch:4]`); *added counts them.
std::vector<std::string> with_channel_counts(const Registry& reg, const std::vector<std::string>& names,
                                             const std::vector<int>& channels, int* added) {
  std::vector<std::string> out;
  for (const std::string& n : names) {
    out.push_back(n);
    const auto open = n.find('[');
    const VariantEntry* e = reg.find(n);
    if (open == std::string::npos || e == nullptr || !e->accepts_config || n.find("/ch:") != std::string::npos) continue;
    const std::string cfg = n.substr(open + 1, n.size() - open - 2);
    for (int ch : channels) {
      const std::string with = cfg + "/ch:" + std::to_string(ch);
      if (!e->accepts_config(with)) continue;
      const std::string full = n.substr(0, open + 1) + with + "]";
      if (std::find(names.begin(), names.end(), full) == names.end() &&
          std::find(out.begin(), out.end(), full) == out.end()) {
        out.push_back(full);
        ++*added;
      }
    }
  }
  return out;
}

// nccl[tuned] and the channel sweep: NCCL with arbench's tuner plugin, on the cuda backend only,
// with the options they need and only with them.
void check_tuner_options(const RunConfig& cfg, Backend backend, bool tuned, int channel_cases) {
  const std::string where = std::string(" (this run uses the ") + std::string(backend_name(backend)) + " backend)";
  if (tuned && backend != Backend::cuda)
    throw UsageError("nccl[tuned] runs NCCL with arbench's tuner plugin, and NCCL needs GPUs, one rank per GPU "
                     "(--backend cuda)" + where + "; drop it from --variants here");
  if (!cfg.nccl_channels.empty() && backend != Backend::cuda)
    throw UsageError("--nccl-channels sets the channels of NCCL's forced configurations, which need GPUs, one rank "
                     "per GPU (--backend cuda)" + where);
  if (tuned && cfg.tuner_table.empty())
    throw UsageError("nccl[tuned] applies a tuner table: give it with --tuner-table FILE (written by "
                     "`arbench settings RESULT.json`)");
  if (!tuned && !cfg.tuner_table.empty())
    throw UsageError("--tuner-table " + cfg.tuner_table + " is applied by nccl[tuned] only: add 'nccl[tuned]' to --variants");
  if (!cfg.nccl_channels.empty() && channel_cases == 0)
    throw UsageError("--nccl-channels " + join_ints(cfg.nccl_channels) + " sets the channels of the forced NCCL "
                     "configurations named in --variants, and none is: e.g. --variants "
                     "'nccl,nccl[ring/ll],nccl[ring/simple]' --family allreduce");
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
  bool tuned = false;
  int channel_cases = 0;
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
    if (!cfg.nccl_channels.empty()) names = with_channel_counts(reg, names, cfg.nccl_channels, &channel_cases);
    for (const auto& n : names) tuned = tuned || n == "nccl[tuned]";
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
  check_tuner_options(cfg, backend, tuned, channel_cases);
  if (sw.cases.empty() && sw.skipped.empty())
    throw UsageError("the sweep is empty: no variant of the selected families matches --variants");
  return sw;
}

}  // namespace arbench
