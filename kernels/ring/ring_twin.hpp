// Host twin of the native ring: the protocol of include/arbench/algo/ring/ring.hpp run sequentially
// (a rank's channels one after another on its thread) or block-faithfully (every channel a block
// of CPU threads, all at once): kernels/twin_grid.hpp, chosen by Tuning::host_threads.
// RingTwin<Mem> works with any host memory policy: HostMem in production (make_ring_twin), the
// mutant policies of the mutation score in tests (make_ring_twin_with).
#pragma once

#include <memory>

#include "arbench/algo/ring/ring.hpp"
#include "arbench/variant.hpp"
#include "kernels/ring/ring_variant.hpp"
#include "kernels/twin_grid.hpp"

namespace arbench {

template <class Mem>
class RingTwin final : public RingVariant {
 public:
  RingTwin(RingOptions opt, TwinOptions twin) : RingVariant(opt), grids_(twin) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() != Backend::host) return Support::no("the ring twin runs on the host fabric");
    return RingVariant::supports(c, f);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    grids_.choose(t.host_threads, algo::RingPolicy::threads_ok(t.host_threads), "ring");
    RingVariant::prepare(c, f, b, t);
    grids_.prepare(f.world(), 0, f.timeout_s());
  }

  void launch(int rank, Stream /*stream*/) override {
    const algo::RingArgs a = args_for(rank);
    with_dtype(dtype_, [&](auto d) { run<decltype(d)::value>(rank, a); });
  }

 protected:
  // Sequential: CPU threads need not be co-resident like GPU blocks, so any channel count runs.
  // Block-faithful: channels wait on each other like the kernel's blocks, capped like the
  // kernel's (one SM each), with the host's cores as SMs.
  int channel_cap(const Fabric& /*f*/) const override { return grids_.sms(algo::RingPolicy::kMaxChannels); }
  int threads() const override { return grids_.threads(); }

 private:
  template <DType D>
  void run(int rank, const algo::RingArgs& a) {
    grids_.launch(rank, a.g.channels,
                  [&](const algo::BlockCtx& c, void* /*shared*/) { return algo::ring_channel<Mem, D>(a, c); });
  }

  TwinGrids grids_;
};

template <class Mem>
std::unique_ptr<RingVariant> make_ring_twin_with(RingOptions opt = {}, TwinOptions twin = {}) {
  return std::make_unique<RingTwin<Mem>>(opt, twin);
}

// The twin with HostMem.
std::unique_ptr<RingVariant> make_ring_twin(RingOptions opt = {}, TwinOptions twin = {});

// Registry entry with the host factory only (register_cuda.cu adds the GPU one).
VariantEntry ring_host_entry();

}  // namespace arbench
