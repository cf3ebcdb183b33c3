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

namespace {

// Pipelined regime: enough back-to-back ops for a stable per-op time, few repetitions.
constexpr int kPipelinedReps = 5;

void fail_on_wrong(const CheckResult& chk, const char* when) {
  if (chk.wrong_elements == 0) return;
  throw CaseError(std::to_string(chk.wrong_elements) + " of " + std::to_string(chk.checked_elements) +
                  " elements wrong " + when + " (first: " + chk.first_error + ")");
}

}  // namespace

// The checks (docs/method.md, "Correctness every case"): every checked group of ops starts from
// an input set no earlier op has read, with the outputs poisoned, so a stale output or an op
// that wrote nothing is a wrong result wherever it happens:
//   warm-up            the construction's inputs (--seed); checked after the warm-up ops
//   isolated samples   next input set; the output of the last timed op is checked
//   pipelined ops      next input set; the output of the last graph replay is checked
//   one eager op       next input set; checked: its previous op read other inputs, so an op that
//                      returns an earlier op's answer fails, and epochs/counters advanced by the
//                      graphs must carry on
// In-place ops re-reduce their own output, so their timed phases start from zero-sum inputs
// (Inputs::zero_sum) and their warm-up check runs one more op on fresh inputs.
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
    auto check = [&](const char* when) {
      CheckResult chk = work->check(f);
      res.checked = true;
      res.wrong_elements = std::max(res.wrong_elements, chk.wrong_elements);
      res.max_ulp_error = std::max(res.max_ulp_error, chk.max_ulp_error);
      fail_on_wrong(chk, when);
    };
    auto one_fresh_op_checked = [&](const char* when) {
      work->next_inputs(f);
      f.run(op);
      v->check_errors();
      check(when);
    };
    auto before_timed_phase = [&] {
      if (cfg_.check) work->next_inputs(f, c.in_place ? Inputs::zero_sum : Inputs::oracle);
    };

    for (int i = 0; i < cfg_.warmup.value_or(1); ++i) f.run(op);
    if (cfg_.warmup.value_or(1) == 0 && cfg_.check) f.run(op);  // the check needs one op
    v->check_errors();
    if (cfg_.check) {
      if (c.in_place)
        one_fresh_op_checked("after warm-up (one more op on fresh inputs: in-place ops consume theirs)");
      else
        check("after warm-up");
    }

    before_timed_phase();
    auto samples = f.time_isolated(op, cfg_.samples.value_or(10));
    v->check_errors();
    if (cfg_.check) check("after the timed isolated ops (fresh inputs before them)");
    for (double s : samples) res.samples_us.push_back(s * 1e6);
    res.latency_us = summarize(res.samples_us);
    const double median_s = res.latency_us.median * 1e-6;
    res.algbw_gbps = algbw_gbps(c.bytes, median_s);
    res.busbw_gbps = busbw_gbps(c.bytes, median_s, c.world);

    if (cfg_.pipelined_ops.value_or(0) > 0) {
      before_timed_phase();
      res.pipelined_us = f.time_pipelined(op, *cfg_.pipelined_ops, kPipelinedReps) * 1e6;
      v->check_errors();
      if (cfg_.check) check("after the pipelined ops (graph replays on GPUs; fresh inputs before them)");
    }
    if (cfg_.check) one_fresh_op_checked("on one eager op after timing (fresh inputs)");
  } catch (const CaseError& e) {
    res.ok = false;
    res.reason = e.what();
  }
  return res;
}

}  // namespace arbench
