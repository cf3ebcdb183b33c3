// The decode-step projection; the arithmetic and the rules are in step.hpp.
#include "step/step.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "arbench/core/dtype.hpp"
#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

template <class T>
std::string join_numbers(const std::vector<T>& v, const char* sep = ",") {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : sep) + std::to_string(x);
  return out;
}

void validate(const StepModel& model, const StepOptions& opt) {
  if (model.hidden < 1) throw UsageError("--hidden must be at least 1, got " + std::to_string(model.hidden));
  if (model.layers < 1) throw UsageError("--layers must be at least 1, got " + std::to_string(model.layers));
  if (opt.batch.empty()) throw UsageError("--batch needs at least one value, e.g. --batch 1,8");
  if (opt.draft.empty()) throw UsageError("--draft needs at least one value, e.g. --draft 0,3,7");
  for (int b : opt.batch)
    if (b < 1 || b > (1 << 20)) throw UsageError("--batch " + std::to_string(b) + " must be between 1 and 1048576");
  for (int d : opt.draft)
    if (d < 0 || d > 1024) throw UsageError("--draft " + std::to_string(d) + " must be between 0 and 1024");
  if (opt.step_ms) {
    if (!(*opt.step_ms > 0)) throw UsageError("--step-ms must be a positive number of milliseconds");
    if (opt.batch.size() != 1 || opt.draft.size() != 1)
      throw UsageError("--step-ms gives one measured engine step, so it needs exactly one --batch and one --draft "
                       "value (the ones that step ran with); got " +
                       std::to_string(opt.batch.size()) + " batch and " + std::to_string(opt.draft.size()) +
                       " draft values");
  }
}

// World sizes holding a usable case of `dtype`.
std::set<int> worlds_of(const ResultFile& r, const std::string& dtype) {
  std::set<int> w;
  for (const auto& c : r.cases)
    if (c.ok && c.dtype == dtype && c.world > 0 && (c.family == "allreduce" || c.family == "allreduce_rmsnorm"))
      w.insert(c.world);
  return w;
}

std::string run_line(const std::string& backend, const MissingSizes& m, const std::string& dtype,
                     const std::vector<std::uint64_t>& needed_bytes, const std::vector<int>& needed_tokens) {
  std::ostringstream os;
  os << "arbench run";
  if (!backend.empty()) os << " --backend " << backend;
  os << " --family " << m.family << " --variants '" << join(m.variants, ",") << "' --gpus " << join_numbers(m.worlds)
     << " --dtype " << dtype;
  if (m.family == "allreduce_rmsnorm") {
    os << " --hidden " << m.hidden << " --tokens " << join_numbers(needed_tokens);
  } else {
    // The sweep doubles from -b; -e on that grid, at or above the largest size, covers them all.
    const std::uint64_t lo = needed_bytes.front();
    std::uint64_t hi = lo;
    while (hi < needed_bytes.back()) hi *= 2;
    os << " -b " << lo << " -e " << hi;
    if (m.in_place) os << " --in-place";
  }
  os << " --out step-sizes.json";
  return os.str();
}

std::string baseline_note(const std::string& chosen, const std::string& asked, const StepCandidate* c,
                          const std::string& backend, bool any_norm_row) {
  if (chosen.empty())
    return "no baseline: none of unfused-nccl, nccl, unfused-oneshot, oneshot-pull is among the projected variants "
           "(see --variants); name one with --baseline";
  std::string note = "savings are against " + chosen;
  if (chosen == "unfused-nccl") note += " (NCCL all-reduce, then a separate residual-add + RMSNorm kernel)";
  else if (!asked.empty()) note += " (--baseline)";
  else
    note += ": unfused-nccl is not among the projected variants" +
            std::string(backend == "host" || backend == "single-gpu" ? " (the " + backend + " backend has no NCCL)"
                                                                     : "");
  if (c && !c->includes_norm && any_norm_row)
    note += "; " + chosen + " is an all-reduce alone, so rows that include the norm are compared with a baseline "
            "that leaves it out (their savings are understated)";
  return note;
}

}  // namespace

StepReport project_step(const ResultFile& result, const StepModel& model, const StepOptions& opt) {
  validate(model, opt);
  const auto dt = parse_dtype(opt.dtype);
  if (!dt) throw UsageError("--dtype '" + opt.dtype + "' is not one of bf16, fp16, fp32");
  StepReport rep;
  rep.take_source(result);
  rep.model = model;
  rep.dtype = opt.dtype;
  rep.dtype_bytes = int(dtype_size(*dt));
  rep.allreduces_per_step = 2 * model.layers;
  rep.step_ms = opt.step_ms;

  const std::set<int> present = worlds_of(result, opt.dtype);
  if (present.empty())
    throw UsageError(result.path + " has no usable " + opt.dtype +
                     " all-reduce or fused-family case; pick the dtype it was run with (--dtype)");
  std::vector<int> worlds = opt.worlds.empty() ? std::vector<int>(present.begin(), present.end()) : opt.worlds;
  for (int w : worlds)
    if (!present.count(w))
      throw UsageError("--gpus " + std::to_string(w) + ": " + result.path + " has no " + opt.dtype + " case at " +
                       std::to_string(w) + " GPUs; it holds " +
                       join_numbers(std::vector<int>(present.begin(), present.end()), ", "));

  // The sizes every (batch, draft) needs, in the order they are asked.
  struct Point {
    int batch, draft, tokens;
    std::uint64_t bytes;
  };
  std::vector<Point> asked;
  std::set<std::uint64_t> bytes_set;
  std::set<int> tokens_set;
  for (int b : opt.batch)
    for (int d : opt.draft) {
      const int t = b * (d + 1);
      const std::uint64_t m = std::uint64_t(t) * std::uint64_t(model.hidden) * dtype_size(*dt);
      asked.push_back({b, d, t, m});
      bytes_set.insert(m);
      tokens_set.insert(t);
    }
  const std::vector<std::uint64_t> needed_bytes(bytes_set.begin(), bytes_set.end());
  const std::vector<int> needed_tokens(tokens_set.begin(), tokens_set.end());

  std::map<std::tuple<std::string, bool>, MissingSizes> missing;  // (family, in_place), over all world sizes
  for (int w : worlds) {
    std::vector<StepCandidate> cands =
        step_candidates(result, w, opt.dtype, model.hidden, opt.variants, &rep.ignored, opt.not_on_gpus, opt.lossy);
    if (cands.empty())
      throw UsageError(result.path + " has no case at " + std::to_string(w) + " GPUs, " + opt.dtype +
                       (opt.variants.empty() ? "" : " matching --variants " + join(opt.variants, ",")) +
                       " that can feed the projection (fused family at hidden " + std::to_string(model.hidden) +
                       ", or allreduce)");
    StepTable table;
    table.world = w;
    const StepCandidate* base = nullptr;
    auto find = [&](const std::string& v) -> const StepCandidate* {
      for (const auto& c : cands)
        if (c.variant == v) return &c;
      return nullptr;
    };
    if (!opt.baseline.empty()) {
      base = find(opt.baseline);
      if (!base) {
        std::vector<std::string> names;
        for (const auto& c : cands) names.push_back(c.variant);
        throw UsageError("--baseline " + opt.baseline + " is not among the variants projected at " +
                         std::to_string(w) + " GPUs: " + join(names, ", "));
      }
    } else {
      for (const char* v : kDefaultBaselines)
        if (!base) base = find(v);
    }
    table.baseline = base ? base->variant : "";
    bool any_norm = false, any_plain = false;
    for (const auto& c : cands) (c.includes_norm ? any_norm : any_plain) = true;
    table.baseline_note = baseline_note(table.baseline, opt.baseline, base, result.backend, any_norm);
    if (any_norm && any_plain)
      table.notes.push_back("rows with norm = no are all-reduces alone (no fused-family form in this result): the "
                            "residual-add + RMSNorm each of their all-reduces needs is not counted");

    for (const Point& p : asked) {
      std::vector<StepRow> rows;
      std::optional<double> base_ms;
      for (const auto& c : cands) {
        const auto us = interpolate_log_log(c.points, double(p.bytes));
        if (!us) {
          MissingSizes& m = missing[{c.family, c.in_place}];
          m.family = c.family;
          if (std::find(m.worlds.begin(), m.worlds.end(), w) == m.worlds.end()) m.worlds.push_back(w);
          m.hidden = c.includes_norm ? model.hidden : 0;
          m.in_place = c.in_place;
          const std::string base_name = c.in_place ? c.variant.substr(0, c.variant.find('/')) : c.variant;
          if (std::find(m.variants.begin(), m.variants.end(), base_name) == m.variants.end())
            m.variants.push_back(base_name);
          if (std::find(m.missing_bytes.begin(), m.missing_bytes.end(), p.bytes) == m.missing_bytes.end()) {
            m.missing_bytes.push_back(p.bytes);
            if (c.includes_norm) m.missing_tokens.push_back(p.tokens);
          }
          continue;
        }
        StepRow r;
        r.batch = p.batch;
        r.draft = p.draft;
        r.tokens = p.tokens;
        r.message_bytes = p.bytes;
        r.variant = c.variant;
        r.family = c.family;
        r.includes_norm = c.includes_norm;
        r.interpolated = std::none_of(c.points.begin(), c.points.end(),
                                      [&](const auto& q) { return q.first == double(p.bytes); });
        r.us_per_allreduce = *us;
        r.ms_per_step = rep.allreduces_per_step * *us / 1000.0;
        r.tokens_per_s_ceiling = p.tokens / (r.ms_per_step / 1000.0);
        if (opt.step_ms) r.comm_share = r.ms_per_step / *opt.step_ms;
        r.lossy = c.lossy;
        if (c.lossy) {
          r.rms_rel_err = error_at(c.rms_rel_err, double(p.bytes));
          r.max_abs_err = error_at(c.max_abs_err, double(p.bytes));
        }
        if (base && c.variant == base->variant) base_ms = r.ms_per_step;
        rows.push_back(std::move(r));
      }
      for (auto& r : rows)
        if (base_ms) {
          r.saving_ms = *base_ms - r.ms_per_step;
          r.saving_fraction = 1.0 - r.ms_per_step / *base_ms;
        }
      // The complete choices (with the norm) first, then the all-reduces alone: never ranked together.
      std::stable_sort(rows.begin(), rows.end(), [](const StepRow& a, const StepRow& b) {
        return std::make_tuple(!a.includes_norm, a.ms_per_step) < std::make_tuple(!b.includes_norm, b.ms_per_step);
      });
      const auto def = std::find_if(rows.begin(), rows.end(), [](const StepRow& r) {
        return r.includes_norm && r.variant == kEngineDefault;
      });
      if (!rows.empty() && rows.front().includes_norm && def != rows.end())
        table.choices.push_back({p.batch, p.draft, def->variant, rows.front().variant, def->tokens_per_s_ceiling,
                                 rows.front().tokens_per_s_ceiling, engine_setting_of(rows.front().variant),
                                 rows.front().rms_rel_err});
      table.rows.insert(table.rows.end(), rows.begin(), rows.end());
    }
    rep.tables.push_back(std::move(table));
  }
  for (auto& [key, m] : missing) {
    std::sort(m.missing_bytes.begin(), m.missing_bytes.end());
    std::sort(m.missing_tokens.begin(), m.missing_tokens.end());
    std::sort(m.variants.begin(), m.variants.end());
    m.run_line = run_line(result.backend, m, opt.dtype, needed_bytes, needed_tokens);
    rep.missing.push_back(std::move(m));
  }
  return rep;
}

}  // namespace arbench
