// Harness: runs one Case end to end (docs/architecture.md): gets the fabric, prepares the
// variant, warms up, checks correctness, measures isolated latency and pipelined time per op,
// checks again, and returns a CaseResult. Host-only: it talks to the Fabric and Variant
// interfaces, so the host tests drive it with the host fabric.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"
#include "results/results.hpp"
#include "run/run_config.hpp"

namespace arbench {

using FabricEnv = std::map<std::string, std::string>;
using FabricFactory = std::function<std::unique_ptr<Fabric>(Backend, int world, const FabricEnv& env)>;

// Fabrics are expensive (NCCL communicators): one per (backend, world, env), created on first
// use and kept for the whole run.
class FabricCache {
 public:
  explicit FabricCache(FabricFactory factory) : factory_(std::move(factory)) {}
  Fabric& get(Backend b, int world, const FabricEnv& env = {});
  // Fabrics created so far, in creation order (for banners and provenance).
  std::vector<const Fabric*> created() const;

 private:
  FabricFactory factory_;
  std::map<std::tuple<int, int, FabricEnv>, std::unique_ptr<Fabric>> fabrics_;
  std::vector<const Fabric*> order_;
};

class Harness {
 public:
  Harness(const RunConfig& cfg, Backend backend, const Registry& reg, FabricCache& fabrics)
      : cfg_(cfg), backend_(backend), reg_(reg), fabrics_(fabrics) {}

  // ok, or why the case cannot run here (creates the case's fabric when needed).
  Support plan(const Case& c);
  // Bytes of memory the case needs on the backend's fabric, all ranks together: the workload's
  // buffers and the variant's scratch, plus the workload's host-side copies. An estimate
  // (run/memory_check.hpp), for cases plan() accepted.
  std::size_t memory_bytes(const Case& c);
  // Runs the case; never throws for a case-level failure (wrong result, timeout): those come
  // back as ok == false with the reason. EnvironmentError still propagates.
  CaseResult run(const Case& c);

 private:
  const RunConfig& cfg_;
  Backend backend_;
  const Registry& reg_;
  FabricCache& fabrics_;
};

}  // namespace arbench
