#include "run/harness.hpp"

#include <algorithm>

#include "arbench/core/errors.hpp"
#include "workload/workload.hpp"

namespace arbench {

Fabric& FabricCache::get(Backend b, int world, const FabricEnv& env) {
  auto key = std::make_tuple(int(b), world, env);
  auto it = fabrics_.find(key);
  if (it == fabrics_.end()) {
    it = fabrics_.emplace(key, factory_(b, world, env)).first;
    order_.push_back(it->second.get());
  }
  return *it->second;
}

std::vector<const Fabric*> FabricCache::created() const { return order_; }

Support Harness::plan(const Case& c) {
  if (auto why = reg_.unavailable_reason(c.variant, backend_); !why.empty()) return Support::no(why);
  auto v = reg_.make(c.variant, backend_);
  Fabric& f = fabrics_.get(backend_, c.world, v->fabric_env());
  return v->supports(c, f);
}

std::size_t Harness::memory_bytes(const Case& c) {
  auto v = reg_.make(c.variant, backend_);
  const Fabric& f = fabrics_.get(backend_, c.world, v->fabric_env());
  const WorkloadFootprint w = workload_footprint(c);
  return std::size_t(c.world) * (w.per_rank + v->scratch_bytes_per_rank(c, f, cfg_.tuning)) + w.host;
}

namespace {

// Pipelined regime: enough back-to-back ops for a stable per-op time, few repetitions.
constexpr int kPipelinedReps = 5;

void fail_on_wrong(const CheckResult& chk, const char* when) {
  if (chk.wrong_elements == 0) return;
  throw CaseError(std::to_string(chk.wrong_elements) + " of " + std::to_string(chk.checked_elements) +
                  " elements wrong " + when + " (first: " + chk.first_error + ")");
}

}  // namespace

CaseResult Harness::run(const Case& c) {
  CaseResult res;
  res.c = c;
  try {
    auto v = reg_.make(c.variant, backend_);
    Fabric& f = fabrics_.get(backend_, c.world, v->fabric_env());
    auto work = make_workload(c, f, v->buffer_placement(), cfg_.seed, cfg_.tuning.eps);
    v->prepare(c, f, work->buffers(), cfg_.tuning);
    res.settings = v->settings();
    const RankFn op = [&](int rank, Stream s) { v->launch(rank, s); };
    auto checked_run = [&](const char* when) {
      // In-place ops consume their input: refill and run once more so the check sees one op.
      if (c.in_place) {
        work->fill(f);
        f.run(op);
        v->check_errors();
      }
      CheckResult chk = work->check(f);
      res.checked = true;
      res.wrong_elements = std::max(res.wrong_elements, chk.wrong_elements);
      res.max_ulp_error = std::max(res.max_ulp_error, chk.max_ulp_error);
      fail_on_wrong(chk, when);
    };

    for (int i = 0; i < cfg_.warmup.value_or(1); ++i) f.run(op);
    if (cfg_.warmup.value_or(1) == 0 && cfg_.check) f.run(op);  // the check needs one op
    v->check_errors();
    if (cfg_.check) checked_run("after warm-up");

    auto samples = f.time_isolated(op, cfg_.samples.value_or(10));
    v->check_errors();
    for (double s : samples) res.samples_us.push_back(s * 1e6);
    res.latency_us = summarize(res.samples_us);
    const double median_s = res.latency_us.median * 1e-6;
    res.algbw_gbps = algbw_gbps(c.bytes, median_s);
    res.busbw_gbps = busbw_gbps(c.bytes, median_s, c.world);

    if (cfg_.pipelined_ops.value_or(0) > 0) {
      res.pipelined_us = f.time_pipelined(op, *cfg_.pipelined_ops, kPipelinedReps) * 1e6;
      v->check_errors();
    }
    if (cfg_.check) checked_run("after timing");
  } catch (const CaseError& e) {
    res.ok = false;
    res.reason = e.what();
  }
  return res;
}

}  // namespace arbench
