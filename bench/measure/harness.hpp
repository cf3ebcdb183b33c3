// Harness: runs one Case end to end (docs/architecture.md): gets the fabric, prepares the
// variant, warms up, checks correctness, measures isolated latency and pipelined time per op,
// checks again, and returns a CaseResult. Host-only: it talks to the Fabric and Variant
// interfaces, so the host tests drive it with the host fabric.
//
// A failed case never takes the run down. A case whose ops did not finish within their bound
// (HangError) is failed; its fabric is aborted (Fabric::abort: ncclCommAbort on the cuda
// backend) before the case's buffers are freed, and dropped, so the next case gets a fresh one.
// When the devices are no longer usable (Fabric::health: a sticky CUDA error), stop_reason()
// says why, and the run must stop.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"
#include "measure/beside/beside_load.hpp"
#include "results/results.hpp"
#include "sweep/run_config.hpp"

namespace arbench {

class Workload;

using FabricEnv = std::map<std::string, std::string>;
using FabricFactory = std::function<std::unique_ptr<Fabric>(Backend, int world, const FabricEnv& env)>;
// The same, for a backend whose fabrics differ by the provider of their symmetric memory (the cuda
// backend: "cuda", arbench's own peer mappings without NCCL, or "nccl", NCCL's communicators and
// windows; docs/variants.md). "" where the backend has one kind.
using ProviderFabricFactory =
    std::function<std::unique_ptr<Fabric>(Backend, int world, const FabricEnv& env, const std::string& provider)>;

// Fabrics are expensive (NCCL communicators, mapped arenas): one per (backend, world, env,
// provider), created on first use and kept for the whole run.
class FabricCache {
 public:
  explicit FabricCache(FabricFactory factory)
      : factory_([f = std::move(factory)](Backend b, int w, const FabricEnv& e, const std::string&) { return f(b, w, e); }) {}
  explicit FabricCache(ProviderFabricFactory factory) : factory_(std::move(factory)) {}
  // The fabric of (backend, world, env, provider). A fabric with a non-empty env is created with
  // those variables set in the process environment (setenv), which is not safe while another
  // thread may read it: every other fabric holding NCCL communicators (and so NCCL's threads) is
  // released first, and re-created (without touching the environment) when next asked for.
  Fabric& get(Backend b, int world, const FabricEnv& env = {}, const std::string& provider = {});
  // Drops `f` (after Fabric::abort); the next get() of its key creates a new one.
  void discard(const Fabric& f);
  // One line per fabric created so far, in creation order (for banners and provenance).
  const std::vector<std::string>& created() const { return described_; }

 private:
  ProviderFabricFactory factory_;
  std::map<std::tuple<int, int, FabricEnv, std::string>, std::unique_ptr<Fabric>> fabrics_;
  std::vector<std::string> described_;
};

// Called around a case's isolated samples, e.g. to snapshot the GPUs' state (device_monitor).
class TimingObserver {
 public:
  virtual ~TimingObserver() = default;
  virtual void before_timing(const Fabric& f) = 0;
  virtual void after_timing(CaseResult& r) = 0;
};

class Harness {
 public:
  Harness(const RunConfig& cfg, Backend backend, const Registry& reg, FabricCache& fabrics)
      : cfg_(cfg), backend_(backend), reg_(reg), fabrics_(fabrics) {}

  // ok, or why the case cannot run here (creates the case's fabric when needed).
  Support plan(const Case& c);
  // Bytes of memory the case needs on the backend's fabric, all ranks together: the workload's
  // buffers and the variant's scratch, plus the workload's host-side copies. An estimate
  // (sweep/memory_check.hpp), for cases plan() accepted.
  std::size_t memory_bytes(const Case& c);
  // Runs the case; never throws for a case-level failure (wrong result, timeout): those come
  // back as ok == false with the reason. EnvironmentError still propagates.
  CaseResult run(const Case& c);
  // Maps, in every fabric the cases run on, one symmetric arena for the largest of them
  // (Fabric::reserve_symmetric, measure/symm_footprint.hpp), so that no case maps memory of its
  // own. Call once, after plan(), with the cases that will run. Collective.
  void reserve_symmetric_memory(const std::vector<Case>& cases);
  // The custom kernels' symmetric-memory providers on the cuda backend as the plans so far
  // decided them: per (world size, provider asked: "" for the default, "cuda", "nccl"), the
  // provider ("cuda", "nccl"), or "!" and why none could be used; and notes for the banner (why
  // the default did not take `cuda` where it did not; an arena that could not be reserved).
  const std::map<std::pair<int, std::string>, std::string>& provider_decisions() const { return decided_; }
  const std::vector<std::string>& provider_notes() const { return provider_notes_; }
  // Why the run must stop (a case left the devices unusable); empty while it may go on.
  const std::string& stop_reason() const { return stop_; }
  // Optional; not owned; must outlive the harness's runs.
  void set_observer(TimingObserver* o) { observer_ = o; }
  // The background load of --beside (the run command's wiring: CPU threads or GPU streams);
  // without one, --beside is refused by the case (measure() throws).
  void set_beside_load(BesideLoadFactory make) { make_beside_ = std::move(make); }

 private:
  void measure(const Case& c, Variant& v, Fabric& f, Workload& work, CaseResult& res);
  // The harness floor of `f`'s world size: an empty op through the same gate, measured once.
  double floor_us(Fabric& f, const std::string& provider);
  // One op of `v` as the case runs it: each rank moved to its next input set (Workload::before_op),
  // held back by its share of the case's arrival skew (Fabric::hold), and without the absent rank
  // of the test switch.
  RankOp op_for(const Case& c, Variant& v, Fabric& f, Workload& work) const;
  // The provider of the fabric `c` runs on ("" on backends with one kind of fabric, "nccl" for
  // the NCCL variants, "nccl@<label>" for those of a library measured beside the default); empty with `skip` set when no provider can give `c` symmetric memory.
  // The default's decision is made once per world size (kernels/fabric/peer/symm_provider.hpp).
  std::string provider_for(const Case& c, const Variant& v, std::string* skip);
  // What a provider's fabric of `world` says of its symmetric memory (creating it if needed):
  // empty when it works, else why not (a fabric that cannot be created says why).
  std::string provider_problem(int world, const std::string& provider);
  Fabric& fabric_for(const Case& c, const Variant& v);

  const RunConfig& cfg_;
  Backend backend_;
  const Registry& reg_;
  FabricCache& fabrics_;
  std::map<std::pair<int, std::string>, double> floors_us_;  // by world size and provider
  std::map<std::pair<int, std::string>, std::string> decided_;  // (world, asked) -> provider, or "!why"
  std::vector<std::string> provider_notes_;
  std::string stop_;
  TimingObserver* observer_ = nullptr;
  BesideLoadFactory make_beside_;
};

}  // namespace arbench
