#include "measure/harness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"
#include "results/stats/stats.hpp"
#include "measure/beside_measure.hpp"
#include "measure/data_path.hpp"
#include "measure/nccl/nccl_protocol_policy.hpp"
#include "measure/phase_recorder.hpp"
#include "measure/sampling.hpp"
#include "measure/symm_footprint.hpp"
#include "kernels/fabric/peer/symm_provider.hpp"
#include "workload/workload.hpp"

namespace arbench {

Fabric& FabricCache::get(Backend b, int world, const FabricEnv& env, const std::string& provider) {
  auto key = std::make_tuple(int(b), world, env, provider);
  auto it = fabrics_.find(key);
  if (it != fabrics_.end()) return *it->second;
  if (!env.empty())
    std::erase_if(fabrics_, [](const auto& kv) { return kv.second->nccl_comm(0) != nullptr; });
  it = fabrics_.emplace(key, factory_(b, world, env, provider)).first;
  described_.push_back(it->second->describe());
  return *it->second;
}

void FabricCache::discard(const Fabric& f) {
  std::erase_if(fabrics_, [&](const auto& kv) { return kv.second.get() == &f; });
}

std::string Harness::provider_problem(int world, const std::string& provider) {
  try {
    return fabrics_.get(backend_, world, {}, provider).symmetric_unsupported_reason();
  } catch (const DeviceFaultError&) {
    throw;  // a GPU faulted for good: the run ends, it is no provider's problem
  } catch (const Error& e) {  // e.g. NCCL missing: the nccl provider's fabric cannot be made
    return e.what();
  }
}

std::string Harness::provider_for(const Case& c, const Variant& v, std::string* skip) {
  if (backend_ != Backend::cuda) return {};
  // The NCCL variants of a library measured beside the default (`nccl@<label>`, --nccl-lib) run on
  // that library's communicators: the name says which (arbench/core/nccl_library_name.hpp).
  if (v.needs_nccl()) return with_library("nccl", split_library(c.variant).library);
  const std::string asked =
      !c.symm.empty() ? c.symm : (cfg_.symm_mem == "cuda" || cfg_.symm_mem == "nccl" ? cfg_.symm_mem : std::string());
  const auto key = std::make_pair(c.world, asked);
  auto it = decided_.find(key);
  if (it == decided_.end()) {
    const ProviderDecision d = decide_provider(
        asked.empty() ? std::nullopt : parse_symm_provider(asked),
        [&] { return ProviderReport{provider_problem(c.world, "cuda")}; },
        [&] { return ProviderReport{provider_problem(c.world, "nccl")}; });
    if (!d.note.empty()) provider_notes_.push_back(std::to_string(c.world) + " GPUs: " + d.note);
    it = decided_.emplace(key, d.provider ? std::string(symm_provider_name(*d.provider)) : "!" + d.skip_reason).first;
  }
  if (!it->second.empty() && it->second[0] == '!') {
    *skip = it->second.substr(1);
    return {};
  }
  return it->second;
}

Fabric& Harness::fabric_for(const Case& c, const Variant& v) {
  std::string skip;
  const std::string provider = provider_for(c, v, &skip);
  if (!skip.empty()) throw CaseError(skip);
  return fabrics_.get(backend_, c.world, v.fabric_env(c, cfg_.tuning), provider);
}

Support Harness::plan(const Case& c) {
  if (auto why = reg_.unavailable_reason(c.variant, backend_); !why.empty()) return Support::no(why);
  auto v = reg_.make(c.variant, backend_);
  std::string skip;
  const std::string provider = provider_for(c, *v, &skip);
  if (!skip.empty()) return Support::no(skip);
  // Support does not depend on the environment a forced NCCL configuration sets, so planning
  // uses the plain fabric of the world size; the configured one is created when the case runs.
  Fabric* fabric = nullptr;
  try {
    fabric = &fabrics_.get(backend_, c.world, {}, provider);
  } catch (const Error& e) {
    // The backend's only fabric, or a GPU that faulted for good: the run cannot go on.
    if (provider.empty() || dynamic_cast<const DeviceFaultError*>(&e) != nullptr) throw;
    return Support::no(e.what());  // e.g. the NCCL variants on a machine without NCCL
  }
  Fabric& f = *fabric;
  Support s = v->supports_with(c, f, cfg_.tuning);
  if (!s.ok) return s;
  const FabricEnv forced = v->fabric_env(c, cfg_.tuning);
  if (!forced.empty() && f.processes().multi_process())
    return Support::no("a forced NCCL configuration runs in a child process of its own environment (no setenv beside "
                       "NCCL's and MPI's threads), which a process of an MPI run cannot start: run `nccl` with the "
                       "variables given to the launcher (mpirun -x NCCL_ALGO=... -x NCCL_PROTO=...)");
  // NCCL reads NCCL_ALGO / NCCL_PROTO from the environment it inherited too: an inherited value
  // that enables LL128 over PCIe is refused like a forced one (a forced configuration overrides it).
  if (forced.empty() && v->data_mover() != DataMover::nccl) return s;
  FabricEnv env = cfg_.inherited_nccl_env;
  for (const auto& [k, val] : forced) env[k] = val;
  const auto nv = cfg_.all_nvlink.find(c.world);
  if (std::string why = nccl_protocol_refusal(env, nv != cfg_.all_nvlink.end() && nv->second, cfg_.allow_ll128_pcie,
                                              !forced.count("NCCL_PROTO"));
      !why.empty())
    return Support::no(why);
  return s;
}

std::size_t Harness::memory_bytes(const Case& c) {
  auto v = reg_.make(c.variant, backend_);
  std::string skip;
  const std::string provider = provider_for(c, *v, &skip);
  if (!skip.empty()) throw CaseError(skip);
  const Fabric& f = fabrics_.get(backend_, c.world, {}, provider);  // sizes do not depend on the environment
  const WorkloadFootprint w = workload_footprint(c);
  return std::size_t(c.world) * (w.per_rank + v->scratch_bytes_per_rank(c, f, cfg_.tuning)) + w.host;
}

namespace {

// Pipelined regime: enough back-to-back ops for a stable per-op time, few repetitions.
constexpr int kPipelinedReps = 5;
// Samples of the harness floor (an empty op through the gate), once per world size.
constexpr int kFloorSamples = 20;

void fail_on_wrong(const CheckResult& chk, const char* when) {
  if (chk.wrong_elements == 0) return;
  throw CaseError(std::to_string(chk.wrong_elements) + " of " + std::to_string(chk.checked_elements) +
                  " elements wrong " + when + " (first: " + chk.first_error + ")");
}

// A lossy variant's error figures (docs/method.md, "Accuracy of the lossy variants"): the worst
// over the case's checks (NaN, the worst of all, stays).
void record_lossy_error(const CheckResult& chk, CaseResult& res) {
  const double rms = chk.sum_sq_ref > 0 ? std::sqrt(chk.sum_sq_err / chk.sum_sq_ref)
                                        : (chk.sum_sq_err == 0 ? 0.0 : std::numeric_limits<double>::infinity());
  auto worst = [](std::optional<double>& slot, double v) {
    if (!slot || std::isnan(v) || v > *slot) slot = v;
  };
  worst(res.max_abs_err, chk.max_abs_err);
  worst(res.rms_rel_err, rms);
}

// Median in microseconds of seconds `v`; -1 (not measured) when empty.
double median_us(const std::vector<double>& v) { return v.empty() ? -1 : median_of(v) * 1e6; }

}  // namespace

double Harness::floor_us(Fabric& f, const std::string& provider) {
  const auto key = std::make_pair(f.world(), provider);
  auto it = floors_us_.find(key);
  if (it != floors_us_.end()) return it->second;
  const IsolatedTimes t = f.time_isolated(RankOp([](int, Stream) {}), kFloorSamples);
  return floors_us_[key] = median_us(t.samples);
}

void Harness::reserve_symmetric_memory(const std::vector<Case>& cases) {
  std::vector<std::pair<Fabric*, std::size_t>> largest;  // per fabric, in the cases' order
  for (const Case& c : cases) {
    auto v = reg_.make(c.variant, backend_);
    // A forced NCCL configuration gets a fabric of its own while it runs (FabricCache::get): not
    // made here, where only the reservation would need it.
    if (!v->fabric_env(c, cfg_.tuning).empty()) continue;
    Fabric& f = fabric_for(c, *v);
    const std::size_t bytes = symmetric_bytes_per_rank(c, *v, f, cfg_.tuning);
    auto it = std::find_if(largest.begin(), largest.end(), [&](const auto& p) { return p.first == &f; });
    if (it == largest.end())
      largest.emplace_back(&f, bytes);
    else
      it->second = std::max(it->second, bytes);
  }
  for (const auto& [f, bytes] : largest) {
    try {
      f->reserve_symmetric(bytes);
    } catch (const Error& e) {  // the same on every process: the provider agrees on its errors
      provider_notes_.push_back("the symmetric arena of " + std::to_string(f->world()) + " ranks could not be mapped " +
                                "for the largest case (" + std::to_string(bytes) + " bytes per rank: " + e.what() +
                                "); each case maps what it needs");
    }
  }
}

RankOp Harness::op_for(const Case& c, Variant& v, Fabric& f, Workload& work) const {
  const int absent = cfg_.test_absent_rank;
  const double skew_s = c.skew_us * 1e-6;
  const int last = c.world - 1;
  return RankOp(
      [&v, &f, &work, absent, skew_s, last](int rank, Stream s) {
        if (rank == absent) return;
        work.before_op(rank);  // in a timed phase: the other input set than this rank's last op
        if (skew_s > 0 && rank > 0) f.hold(rank, s, skew_s * rank / last);  // rank r: r/(N-1) of the skew
        v.launch(rank, s);
      },
      [&v, absent](int rank, Stream s) { if (rank != absent) v.launch_after(rank, s); });
}

// The checks (docs/method.md, "Correctness every case"): every checked group of ops starts from
// an input set no earlier op has read, with the outputs poisoned, so a stale output or an op
// that wrote nothing is a wrong result wherever it happens:
//   warm-up            the construction's inputs (--seed); checked after the warm-up ops
//   isolated samples   next two input sets, read in turn; the output of the last timed op is
//                      checked against the set it read
//   pipelined ops      next two input sets, in turn; the output of the last graph replay is checked
//   phase timeline     next two input sets, in turn; the last recorded op (phase marks on) is checked
//   one eager op       next input set; checked: its previous op read other inputs, so an op that
//                      returns an earlier op's answer fails, and epochs/counters advanced by the
//                      graphs must carry on
// In-place ops re-reduce their own output, so their timed phases start from zero-sum inputs
// (Inputs::zero_sum) and their warm-up check runs one more op on fresh inputs.
// In a multi-process run every process fails a step together, with the lowest failing rank's
// message, so no process goes on to wait for peers that stopped: the fabric's ops agree on their
// own errors, these are the steps outside them (one process: the steps as they are). Each
// process fills and checks the ranks it drives; gather_check adds the checks up.
void Harness::measure(const Case& c, Variant& v, Fabric& f, Workload& work, CaseResult& res) {
  World& w = f.processes();
  agree_on_errors(w, [&] { v.prepare(c, f, work.buffers(), cfg_.tuning); }, "preparing the case");
  // Ops the variant runs first (collectives), only once every process's prepare() worked.
  agree_on_errors(w, [&] { v.prepare_ops(f); }, "the variant's own ops before the case");
  res.settings = v.settings();
  res.sms = v.sms(c, f);  // from the launch prepare() chose (docs/output.md, "sms")
  res.data_path = data_path_of(f, v);
  const RankOp op = op_for(c, v, f, work);
  auto check_errors = [&] { agree_on_errors(w, [&] { v.check_errors(); }, "collecting the ranks' errors"); };
  auto check = [&](const char* when) {
    CheckResult chk = gather_check(w, work.check(f));
    res.checked = true;
    res.wrong_elements = std::max(res.wrong_elements, chk.wrong_elements);
    res.max_ulp_error = std::max(res.max_ulp_error, chk.max_ulp_error);
    if (chk.lossy) record_lossy_error(chk, res);
    fail_on_wrong(chk, when);
  };
  auto one_fresh_op_checked = [&](const char* when) {
    work.next_inputs(f);
    f.run(op);
    check_errors();
    check(when);
  };
  // A timed phase reads two input sets in turn, so an op that reads a slot its predecessor left
  // gets the other set's numbers, and the check after the phase sees it.
  auto before_timed_phase = [&] {
    if (cfg_.check) work.next_alternating_inputs(f, c.in_place ? Inputs::zero_sum : Inputs::oracle);
  };

  for (int i = 0; i < cfg_.warmup.value_or(1); ++i) f.run(op);
  if (cfg_.warmup.value_or(1) == 0 && cfg_.check) f.run(op);  // the check needs one op
  check_errors();
  if (cfg_.check) {
    if (c.in_place)
      one_fresh_op_checked("after warm-up (one more op on fresh inputs: in-place ops consume theirs)");
    else
      check("after warm-up");
  }

  before_timed_phase();
  if (observer_) observer_->before_timing(f);
  const TakenSamples t = take_samples(f, op, sampling_plan(cfg_));
  if (observer_) observer_->after_timing(res);
  check_errors();
  res.discarded_samples = t.discarded;
  if (t.seconds.empty())
    throw CaseError("all " + std::to_string(t.discarded) + " samples were discarded: the start gate timed out every "
                    "time (the ranks' ops could not be enqueued within --timeout)");
  if (cfg_.check) check("after the timed isolated ops (fresh inputs before them)");
  for (double s : t.seconds) res.samples_us.push_back(s * 1e6);
  res.latency_us = summarize(res.samples_us);
  res.median_ci_us = median_interval(res.samples_us);
  res.sampling_stop = stop_reason_name(t.reason);
  res.sampling_time_s = t.elapsed_s;
  res.start_skew_us = median_us(t.start_skew);
  res.clock_sync = f.clock_sync();
  const double median_s = res.latency_us.median * 1e-6;
  res.algbw_gbps = algbw_gbps(c.bytes, median_s);
  res.busbw_gbps = busbw_gbps(c.bytes, median_s, c.world);

  if (cfg_.pipelined_ops.value_or(0) > 0) {
    before_timed_phase();
    res.pipelined_us = f.time_pipelined(op, *cfg_.pipelined_ops, kPipelinedReps) * 1e6;
    check_errors();
    if (cfg_.check) check("after the pipelined ops (graph replays on GPUs; fresh inputs before them)");
  }
  // The phase timeline: extra ops after the timed ones, so the timed numbers never record.
  if (cfg_.phases || c.skew_us > 0) {
    before_timed_phase();
    res.phases = record_phase_timeline(v, f, op, c.cold_cache);
    check_errors();
    if (cfg_.check && res.phases) check("after the phase-timeline ops (phase marks on; fresh inputs before them)");
  }
  // Beside a background load (--beside): extra ops after the timed ones, checked like them.
  if (!cfg_.beside.empty()) {
    const auto kind = parse_beside_kind(cfg_.beside);
    if (!kind || !make_beside_) throw CaseError("--beside " + cfg_.beside + ": this run has no such background load");
    before_timed_phase();
    const std::unique_ptr<BesideLoad> load = make_beside_(f, *kind);
    BesidePlan plan;
    plan.samples = sampling_plan(cfg_);
    plan.pipelined_ops = std::max(cfg_.pipelined_ops.value_or(0), 1);
    res.beside = measure_beside(f, op, *load, plan, *kind);
    check_errors();
    if (cfg_.check) check("after the ops beside the background load (fresh inputs before them)");
  }
  if (cfg_.check) one_fresh_op_checked("on one eager op after timing (fresh inputs)");
}

CaseResult Harness::run(const Case& c) {
  CaseResult res;
  res.c = c;
  Fabric* used = nullptr;
  bool hung = false;
  auto fail = [&](const CaseError& e) {
    res.ok = false;
    hung = hung || dynamic_cast<const HangError*>(&e) != nullptr;
    res.reason = hung ? c.name() + " did not finish: " + e.what() : std::string(e.what());
    if (hung && used != nullptr) used->abort();  // before the case's buffers are freed
  };
  try {
    auto v = reg_.make(c.variant, backend_);
    std::string skip;
    const std::string provider = provider_for(c, *v, &skip);
    if (!skip.empty()) throw CaseError(skip);  // plan() said so: such a case is not run
    Fabric& f = fabrics_.get(backend_, c.world, v->fabric_env(c, cfg_.tuning), provider);
    used = &f;
    // NCCL's windows of any library are provider `nccl` ("nccl@<label>" names the fabric).
    if (v->buffer_placement() == Placement::symmetric || !v->needs_nccl())
      res.symm_mem = provider.substr(0, provider.find('@'));
    res.floor_us = floor_us(f, provider);
    std::unique_ptr<Workload> work;
    agree_on_errors(
        f.processes(),
        [&] {  // lossy variants: random inputs checked within the FP8 error bound (workload_lossy.cpp)
          work = v->lossy() ? make_lossy_workload(c, f, v->buffer_placement(), cfg_.seed, v->wire_quantizations())
                            : make_workload(c, f, v->buffer_placement(), cfg_.seed, cfg_.tuning.eps,
                                            v->signed_zeros());
        },
        "allocating the case's buffers");
    try {
      measure(c, *v, f, *work, res);
    } catch (const CaseError& e) {
      fail(e);  // here, while the variant's and the workload's buffers still exist
    }
  } catch (const CaseError& e) {
    fail(e);
  }
  if (used == nullptr) return res;
  // A fabric that a failed grouped NCCL call left unusable is replaced, never reused (even after
  // a case that passed: its next group would run the queued calls). Every process replaces its
  // fabric, or none does (creating one is collective).
  const std::string poisoned = first_failure(used->processes(), used->unusable_reason(), "checking the fabric");
  if (res.ok && poisoned.empty()) return res;
  const std::string sick = res.ok ? std::string() : first_failure(used->processes(), used->health(), "checking the devices");
  if (hung || !sick.empty() || !poisoned.empty()) {
    if (!hung) used->abort();
    fabrics_.discard(*used);
  }
  if (!sick.empty()) {
    stop_ = c.name() + " left the devices unusable: " + sick;
    res.reason += " [" + sick + "]";
  }
  return res;
}

}  // namespace arbench
