// What the harness tests share: the host variants' registry (or one test variant's), a quick run
// configuration, and a do-nothing variant for the tests' stand-ins to start from.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "arbench/variant.hpp"
#include "kernels/fabric/host/host_fabric.hpp"
#include "measure/harness.hpp"
#include "sweep/run_config.hpp"

namespace arbench::testing {

inline Registry host_registry() {
  Registry r;
  register_host_variants(r);
  return r;
}

// A registry of one test-only host variant, `name`, made by `make`.
inline Registry one_host_variant(const std::string& name, VariantFactory make) {
  Registry r;
  VariantEntry e;
  e.name = name;
  e.host = std::move(make);
  r.add(e);
  return r;
}

// Few ops per case: the tests check behaviour, not timings.
inline RunConfig quick_config() {
  RunConfig c;
  c.warmup = 1;
  c.samples = 3;
  c.pipelined_ops = 2;
  c.timeout_s = 10;
  return c;
}

// A variant that every fabric supports and whose op does nothing: the base of the tests' stand-ins,
// which override only what they are about (the data mover, the fabric environment, NCCL's need).
class IdleVariant : public Variant {
 public:
  Support supports(const Case&, const Fabric&) const override { return Support::yes(); }
  void prepare(const Case&, Fabric&, const OpBuffers&, const Tuning&) override {}
  void launch(int, Stream) override {}
};

// Host fabrics of any world size, created on first use.
inline FabricCache host_fabric_cache() {
  return FabricCache([](Backend, int world, const FabricEnv&) { return std::make_unique<HostFabric>(world, 10.0); });
}

}  // namespace arbench::testing
