// tune: ranking variants per size, crossovers and dispatch rules; see tune.hpp.
#include "analysis/tune.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"
#include "analysis/verdict/mann_whitney.hpp"
#include "analysis/verdict/verdict.hpp"
#include "results/stats/noise.hpp"

namespace arbench {
namespace {

// family, dtype, world, hidden, in_place, cold_cache
using TableKey = std::tuple<std::string, std::string, int, int, bool, bool>;

// The table a case belongs to and its place on the table's axis (tokens for the fused family, bytes
// otherwise): tune's tables and the referee's points alike.
TableKey table_key(const ResultCase& c) {
  const bool fused = c.family == "allreduce_rmsnorm";
  return {c.family, c.dtype, c.world, fused ? c.hidden : 0, c.in_place, c.cold_cache};
}
std::uint64_t axis_size(const ResultCase& c) {
  return c.family == "allreduce_rmsnorm" ? std::uint64_t(c.tokens) : c.bytes;
}

// Where a case's variant would be dispatched: its world size, NVLink as the result records it.
DispatchPlace place_of(const ResultFile& result, const ResultCase& c) {
  const auto at = result.all_nvlink.find(c.world);
  return {c.world, at != result.all_nvlink.end() && at->second};
}

// On a box where pull beats push (`arbench doctor`): the pull twin of a push winner that is not
// significantly slower takes its place.
void prefer_pull_twin(std::vector<const ResultCase*>& cands, double alpha) {
  const std::string& best = cands[0]->variant;
  const std::size_t at = best.find("push");
  if (at == std::string::npos) return;
  const std::string twin = std::string(best).replace(at, 4, "pull");
  for (std::size_t i = 1; i < cands.size(); ++i)
    if (cands[i]->variant == twin && mann_whitney_u(cands[0]->samples_us, cands[i]->samples_us).p_value >= alpha) {
      std::swap(cands[0], cands[i]);
      if (i != 1) std::swap(cands[1], cands[i]);  // the push variant runs up
      return;
    }
}

// The 95% interval of a case's median: as recorded, else from its samples (unknown under 6).
std::optional<MedianInterval> interval_of(const ResultCase& c) {
  if (c.median_ci && c.median_ci->known) return c.median_ci;
  const MedianInterval m = median_interval(c.samples_us);
  return m.known ? std::optional<MedianInterval>(m) : std::nullopt;
}

// Within the noise: not significantly different (Mann-Whitney p >= alpha) and the two medians'
// 95% intervals overlap (both known: a case with too few samples to say ties nothing).
bool tied(const ResultCase& a, const ResultCase& b, double alpha) {
  const auto x = interval_of(a), y = interval_of(b);
  return x && y && x->lower <= y->upper && y->lower <= x->upper &&
         mann_whitney_u(a.samples_us, b.samples_us).p_value >= alpha;
}

// A tie within the noise goes to fewer SMs (they leave a model beside the all-reduce more of the
// GPU): of the candidates tied with the fastest, the one that takes the fewest SMs (counts known,
// fewer than the fastest's) goes first and the fastest runs up.
void prefer_fewer_sms(std::vector<const ResultCase*>& cands, double alpha) {
  const ResultCase* fastest = cands[0];
  if (!fastest->sms) return;
  std::size_t pick = 0;
  for (std::size_t i = 1; i < cands.size(); ++i) {
    if (!cands[i]->sms || *cands[i]->sms >= *cands[pick]->sms) continue;
    if (tied(*fastest, *cands[i], alpha)) pick = i;
  }
  if (pick > 0) std::rotate(cands.begin(), cands.begin() + std::ptrdiff_t(pick), cands.begin() + std::ptrdiff_t(pick) + 1);
}

// Whether two cases' samples differ: the Mann-Whitney p, and p < alpha (tune's points and the referee).
struct Difference {
  double p_value = 1;
  bool significant = false;
};
Difference difference(const ResultCase& a, const ResultCase& b, double alpha) {
  const double p = mann_whitney_u(a.samples_us, b.samples_us).p_value;
  return {p, p < alpha};
}

TunePoint rank_point(std::uint64_t size, std::vector<const ResultCase*> cands, double alpha, bool prefer_pull) {
  // Lowest median first; the name breaks exact ties so the output is deterministic.
  std::sort(cands.begin(), cands.end(), [](const ResultCase* a, const ResultCase* b) {
    return std::tie(a->median_us, a->variant) < std::tie(b->median_us, b->variant);
  });
  const std::string fastest = cands[0]->variant;
  if (prefer_pull) prefer_pull_twin(cands, alpha);
  const std::string after_pull = cands[0]->variant;
  prefer_fewer_sms(cands, alpha);
  TunePoint p;
  p.preferred_pull = after_pull != fastest;
  p.preferred_fewer_sms = cands[0]->variant != after_pull;
  p.best_sms = cands[0]->sms.value_or(-1);
  p.size = size;
  p.candidates = int(cands.size());
  p.best = cands[0]->variant;
  p.best_us = cands[0]->median_us;
  if (cands.size() > 1) {
    p.runner_up = cands[1]->variant;
    p.runner_up_us = cands[1]->median_us;
    p.runner_up_sms = cands[1]->sms.value_or(-1);
    p.margin = p.best_us > 0 ? p.runner_up_us / p.best_us - 1 : 0;
    const Difference d = difference(*cands[0], *cands[1], alpha);
    p.p_value = d.p_value;
    p.significant = d.significant;
  }
  return p;
}

void derive_crossovers_and_rules(TuneTable& t) {
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    const TunePoint& p = t.points[i];
    const bool last = i + 1 == t.points.size();
    if (!last && t.points[i + 1].best != p.best)
      t.crossovers.push_back({p.best, t.points[i + 1].best, p.size, t.points[i + 1].size});
    if (last || t.points[i + 1].best != p.best) t.rules.push_back({p.size, last, p.best});
  }
}

// ---- the referee: arbench's best against each peer as its engine runs it ----

struct Sides {
  const ResultCase* arbench = nullptr;           // the fastest own variant
  std::map<std::string, const ResultCase*> peers;  // peer -> its fastest case as its engine runs it
};

// A case a verdict can rest on: measured, aligned arrivals, exact (tune leaves out the same).
bool measured(const ResultCase& c) {
  return c.ok && !c.samples_us.empty() && c.skew_us <= 0 && !c.has_error_figures() && !c.family.empty() &&
         c.world > 0;
}

void keep_fastest(const ResultCase*& slot, const ResultCase& c) {
  if (slot == nullptr || c.median_us < slot->median_us) slot = &c;
}

}  // namespace

DispatchFilter registry_dispatch_filter(const Registry& reg) {
  return [&reg](const std::string& variant, DispatchPlace at) -> std::string {
    if (const VariantEntry* e = reg.find(variant); e != nullptr && !e->peer.empty()) {
      const std::string why = peer_not_dispatchable(variant, at);
      return why.empty() ? why : "no engine selects it: " + why;
    }
    const std::string why = reg.unavailable_reason(variant, Backend::cuda);
    return why.empty() ? why : "not on the cuda backend: " + why;
  };
}

TuneReport tune_results(const ResultFile& result, double alpha, const DispatchFilter& not_dispatchable) {
  TuneReport rep;
  rep.take_source(result);
  rep.alpha = alpha;
  rep.prefer_pull = result.pull_beats_push.value_or(false);

  // table -> size -> cases
  std::map<TableKey, std::map<std::uint64_t, std::vector<const ResultCase*>>> groups;
  std::map<std::pair<std::string, std::string>, int> excluded;  // (variant, why) -> cases
  int skewed = 0;
  std::map<std::string, int> lossy;  // variant -> cases
  for (const ResultCase& c : result.cases) {
    if (c.family.empty() || c.variant.empty() || c.world <= 0) {
      rep.ignored.push_back(c.name + ": not an arbench case name, shape unknown");
      continue;
    }
    if (std::string label = peer_engine_label(c.variant); !label.empty()) rep.peer_labels[c.variant] = std::move(label);
    // Another NCCL library of the run (--nccl-lib): an engine loads one NCCL, so its cases are no
    // dispatch candidates; `compare --between` and `settings` weigh the switch.
    const std::string library = split_library(c.variant).library;
    if (const std::string why = !library.empty()
                                    ? "NCCL library nccl@" + library + " measured beside the run's default; an engine "
                                      "loads one NCCL: `arbench compare RESULT --between nccl,nccl@" + library +
                                      "` and `arbench settings` weigh the switch"
                                : not_dispatchable ? not_dispatchable(c.variant, place_of(result, c))
                                                   : "";
        !why.empty()) {
      ++excluded[{c.variant, why}];
      continue;
    }
    if (c.skew_us > 0) {  // a what-if of late arrivals: an engine dispatches without knowing its skew
      ++skewed;
      continue;
    }
    // A low-precision variant (FP8 on the wire) changes the engine's numerics: a dispatch table
    // that picks it by speed alone would hide its error. `step` and `settings` weigh it with its
    // error shown.
    if (c.has_error_figures()) {
      ++lossy[c.variant];
      continue;
    }
    if (!c.ok || c.samples_us.empty()) {
      rep.ignored.push_back(c.name + ": failed" + (c.reason.empty() ? "" : " (" + c.reason + ")"));
      continue;
    }
    groups[table_key(c)][axis_size(c)].push_back(&c);
  }
  for (const auto& [refused, count] : excluded)
    rep.ignored.push_back(refused.first + " (" + std::to_string(count) + " cases): not a dispatch candidate, " +
                          refused.second);
  for (const auto& [variant, count] : lossy)
    rep.ignored.push_back(variant + " (" + std::to_string(count) +
                          " cases): low precision, never in a dispatch table; its speed with its error: "
                          "`arbench step`, `arbench settings`");
  if (skewed > 0)
    rep.ignored.push_back(std::to_string(skewed) +
                          " cases with an arrival skew (/skew:US): tables are chosen from aligned arrivals");
  if (groups.empty())
    throw UsageError(result.path + ": no successful case with an arbench name "
                                   "(allreduce/<variant>/<dtype>/gpus:<N>/bytes:<B>) of a variant that runs on "
                                   "GPUs to tune; run `arbench run` first");

  for (const auto& [key, sizes] : groups) {
    TuneTable t;
    std::tie(t.family, t.dtype, t.world, t.hidden, t.in_place, t.cold_cache) = key;
    t.axis = t.family == "allreduce_rmsnorm" ? "tokens" : "bytes";
    for (const auto& [size, cands] : sizes) {
      t.points.push_back(rank_point(size, cands, alpha, rep.prefer_pull));
      for (const ResultCase* c : cands)
        if (!c->islands.empty()) t.islands = c->islands;
    }
    derive_crossovers_and_rules(t);
    rep.tables.push_back(std::move(t));
  }
  rep.referee = referee_points(result, alpha, not_dispatchable);
  return rep;
}

std::vector<RefereePoint> referee_points(const ResultFile& result, double alpha, const DispatchFilter& not_dispatchable) {
  std::map<std::pair<TableKey, std::uint64_t>, Sides> points;  // a table's point -> its two sides
  for (const ResultCase& c : result.cases) {
    if (!measured(c)) continue;
    Sides& s = points[{table_key(c), axis_size(c)}];
    const DispatchPlace at = place_of(result, c);
    if (!peer_engine_label(c.variant).empty()) {  // a peer: its engine's cases only
      if (const std::string peer = peer_as_engine_runs_it(c.variant, at); !peer.empty()) keep_fastest(s.peers[peer], c);
      continue;
    }
    // NCCL in any form (nccl, nccl-symm, nccl@LIB, unfused-nccl) is the engines' default, not arbench's own.
    if (c.variant.find("nccl") != std::string::npos) continue;
    if (not_dispatchable && !not_dispatchable(c.variant, at).empty()) continue;
    keep_fastest(s.arbench, c);
  }
  std::vector<RefereePoint> out;
  for (const auto& [key, s] : points) {
    if (s.arbench == nullptr) continue;
    for (const auto& [peer, engine] : s.peers) {
      RefereePoint p;
      std::tie(p.family, p.dtype, p.world, p.hidden, p.in_place, p.cold_cache) = key.first;
      p.size = key.second;
      p.axis = p.family == "allreduce_rmsnorm" ? "tokens" : "bytes";
      p.peer = peer;
      p.engine_case = engine->variant;
      p.engine_us = engine->median_us;
      p.arbench_best = s.arbench->variant;
      p.arbench_us = s.arbench->median_us;
      const Difference d = difference(*s.arbench, *engine, alpha);
      p.p_value = d.p_value;
      p.significant = d.significant;
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace arbench
