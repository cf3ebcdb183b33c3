// The choices `arbench step` ranks: one candidate per measured variant of a result at one world
// size (step.hpp says which are left out and why), and the log-log interpolation between sizes.
#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "step/step.hpp"
#include "arbench/core/dtype.hpp"

namespace arbench {
namespace {

// The fused-family variants that stand for an allreduce variant: when one of them is measured,
// the allreduce variant is left out (the fused-family row includes the norm it lacks).
const std::map<std::string, std::vector<std::string>, std::less<>> kFusedForms = {
    {"nccl", {"unfused-nccl"}},
    {"oneshot-pull", {"unfused-oneshot", "fused-oneshot"}},
    {"twoshot", {"fused-twoshot"}},
    {"island-oneshot", {"fused-island-oneshot"}},
    {"island-twoshot", {"fused-island-twoshot"}},
};

bool matches_any(const std::vector<std::string>& globs, const std::string& name, const std::string& base) {
  if (globs.empty()) return true;
  for (const auto& g : globs)
    if (g == name || g == base || fnmatch(g.c_str(), name.c_str(), 0) == 0 || fnmatch(g.c_str(), base.c_str(), 0) == 0)
      return true;
  return false;
}

}  // namespace

std::optional<double> interpolate_log_log(const LatencyPoints& p, double x) {
  if (p.empty() || !(x >= p.front().first) || !(x <= p.back().first)) return std::nullopt;
  auto hi = std::lower_bound(p.begin(), p.end(), x, [](const auto& a, double v) { return a.first < v; });
  if (hi->first == x) return hi->second;
  auto lo = hi - 1;
  if (!(lo->first > 0) || !(lo->second > 0) || !(hi->second > 0)) return std::nullopt;
  const double f = (std::log(x) - std::log(lo->first)) / (std::log(hi->first) - std::log(lo->first));
  return std::exp(std::log(lo->second) + f * (std::log(hi->second) - std::log(lo->second)));
}

std::optional<double> error_at(const LatencyPoints& e, double x) {
  if (e.empty() || !(x >= e.front().first) || !(x <= e.back().first)) return std::nullopt;
  auto hi = std::lower_bound(e.begin(), e.end(), x, [](const auto& a, double v) { return a.first < v; });
  if (hi->first == x) return hi->second;
  return std::max((hi - 1)->second, hi->second);
}

std::string engine_setting_of(const std::string& variant) {
  if (variant == "fused-oneshot" || variant == "fused-twoshot")
    return "fuse the all-reduce with the norm (vLLM's fuse_allreduce_rms, FlashInfer's allreduce_fusion)";
  if (variant == "unfused-oneshot")
    return "a custom one-shot all-reduce, then the norm (vLLM / SGLang custom all-reduce, FlashInfer PCIe IPC)";
  if (variant == "unfused-nccl") return "";
  return "see `arbench settings`";
}

std::vector<StepCandidate> step_candidates(const ResultFile& result, int world, const std::string& dtype, int hidden,
                                           const std::vector<std::string>& globs, std::vector<std::string>* ignored,
                                           const std::function<std::string(const std::string&)>& not_on_gpus,
                                           const std::function<bool(const std::string&)>& lossy) {
  std::map<std::pair<std::string, std::string>, StepCandidate> by_key;  // (family, name)
  const bool gpu_result = result.backend == "cuda" || result.backend == "single-gpu";
  std::map<std::string, std::pair<std::string, int>> not_choices;  // variant -> (why, cases)
  std::set<std::string> with_figures;  // variants one of whose cases records an error figure: lossy
  for (const auto& c : result.cases)
    if (c.has_error_figures()) with_figures.insert(c.variant);
  for (const auto& c : result.cases) {
    if (c.world != world || c.dtype != dtype) continue;
    if (gpu_result && not_on_gpus) {
      if (const std::string why = not_on_gpus(c.variant); !why.empty()) {
        auto& [reason, n] = not_choices[c.variant];
        reason = why;
        ++n;
        continue;
      }
    }
    const bool fused = c.family == "allreduce_rmsnorm";
    if (!fused && c.family != "allreduce") continue;
    if (fused && c.hidden != hidden) continue;
    if (!c.ok || !(c.median_us > 0)) {
      if (ignored) ignored->push_back(c.name + (c.ok ? ": no positive median" : ": failed (" + c.reason + ")"));
      continue;
    }
    const std::string name = c.variant + (c.in_place ? "/inplace" : "");
    if (!matches_any(globs, name, c.variant)) continue;
    const bool is_lossy = with_figures.count(c.variant) > 0 || (lossy && lossy(c.variant));
    if (is_lossy && !c.rms_rel_err) {  // a low-precision variant is a choice only with its error shown
      if (ignored) ignored->push_back(c.name + ": low precision without its error figure (run with the check on)");
      continue;
    }
    StepCandidate& s = by_key[{c.family, name}];
    s.variant = name;
    s.family = c.family;
    s.includes_norm = fused;
    s.in_place = c.in_place;
    const std::uint64_t bytes =
        c.bytes ? c.bytes : std::uint64_t(c.tokens) * std::uint64_t(c.hidden) * dtype_size(*parse_dtype(c.dtype));
    s.points.emplace_back(double(bytes), c.median_us);
    if (is_lossy) {
      s.lossy = true;
      s.rms_rel_err.emplace_back(double(bytes), *c.rms_rel_err);
      if (c.max_abs_err) s.max_abs_err.emplace_back(double(bytes), *c.max_abs_err);
    }
  }
  if (ignored)
    for (const auto& [variant, why] : not_choices)
      ignored->push_back(variant + " (" + std::to_string(why.second) + " cases at " + std::to_string(world) +
                         " GPUs): no choice on GPUs: " + why.first);
  std::set<std::string> fused_present;
  for (const auto& [key, s] : by_key)
    if (s.includes_norm) fused_present.insert(s.variant);
  std::vector<StepCandidate> out;
  for (auto& [key, s] : by_key) {
    if (!s.includes_norm && !s.in_place) {
      auto forms = kFusedForms.find(s.variant);
      if (forms != kFusedForms.end() &&
          std::any_of(forms->second.begin(), forms->second.end(),
                      [&](const std::string& f) { return fused_present.count(f) > 0; }))
        continue;
    }
    std::sort(s.points.begin(), s.points.end());
    std::sort(s.rms_rel_err.begin(), s.rms_rel_err.end());
    std::sort(s.max_abs_err.begin(), s.max_abs_err.end());
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace arbench
