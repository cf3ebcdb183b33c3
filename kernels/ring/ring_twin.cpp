#include "kernels/ring/ring_twin.hpp"

#include "arbench/algo/ring.hpp"
#include "kernels/mem_host.hpp"

namespace arbench {
namespace {

// Runs every channel of one rank in order on the calling thread. Channels are independent
// rings (channel ch only waits for channel ch of its neighbours), so running them one after
// another on every rank makes progress. Stops at the first error (recorded; the neighbours
// waiting on the missing channels time out on their own).
template <DType D>
void run_twin(const algo::RingArgs& a) {
  for (int ch = 0; ch < a.g.channels; ++ch) {
    const algo::BlockCtx c{ch, a.g.channels, 0, 1};
    if (!algo::ring_channel<HostMem, D>(a, c)) return;
  }
}

class RingTwin final : public RingVariant {
 public:
  explicit RingTwin(RingOptions opt) : RingVariant(opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() != Backend::host) return Support::no("the ring twin runs on the host fabric");
    return RingVariant::supports(c, f);
  }

  void launch(int rank, Stream /*stream*/) override {
    const algo::RingArgs a = args_for(rank);
    switch (dtype_) {  // the one dtype -> template switch
      case DType::bf16: return run_twin<DType::bf16>(a);
      case DType::fp16: return run_twin<DType::fp16>(a);
      case DType::fp32: return run_twin<DType::fp32>(a);
    }
  }

 protected:
  // CPU threads never need to be co-resident like GPU blocks: any channel count runs.
  int channel_cap(const Fabric& /*f*/) const override { return algo::RingPolicy::kMaxChannels; }
  int threads() const override { return 1; }
};

}  // namespace

std::unique_ptr<RingVariant> make_ring_twin(RingOptions opt) { return std::make_unique<RingTwin>(opt); }

VariantEntry ring_host_entry() {
  VariantEntry e;
  e.name = "ring";
  e.family = Family::allreduce;
  e.summary = "native ring: reduce-scatter + all-gather over 2(N-1) pipelined steps, pushed to the next rank";
  e.host = [] { return make_ring_twin(); };
  return e;
}

}  // namespace arbench
