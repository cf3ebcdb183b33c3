// `reference` (host fabric only), deliberately plain: it is the yardstick, not a contender.
//   barrier; rank r sums its 1/N slice of every peer's input in fp32, in rank order 0..N-1,
//   into its symmetric scratch; barrier; every rank copies every slice from its owner's
//   scratch into its output.
// Every element is summed once, in the same order, so all ranks hold identical bits. The
// second barrier means nobody writes an output (possibly its own input, in place) before
// every rank has finished reading inputs; the next op's first barrier means nobody
// overwrites a scratch slice before every peer has copied it.
#include "kernels/reference/reference_twin.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <algorithm>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/traffic_schedules.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {
namespace {

class ReferenceAllReduce final : public Variant {
 public:
  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() != Backend::host) return Support::no("reference runs on the host backend only");
    if (c.family != Family::allreduce) return Support::no("reference is an allreduce");
    if (std::string why = f.symmetric_unsupported_reason(); !why.empty()) return Support::no(why);  // it reads peers
    return Support::yes();
  }

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric&, const Tuning&) const override {
    return c.bytes + sizeof(std::uint32_t);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning&) override {
    case_ = c;
    world_ = f.world();
    timeout_s_ = f.timeout_s();
    flags_ = f.alloc(sizeof(std::uint32_t), Placement::symmetric);
    scratch_ = f.alloc(c.bytes, Placement::symmetric);
    in_ = b.in;
    out_ = b.out;
    epoch_.assign(world_, 0);
  }

  // The host yardstick has no GPU counterpart to model: it takes no SM.
  SmUse sms(const Case& /*c*/, const Fabric& /*f*/) const override {
    return {0, "none: the host yardstick, a CPU loop with no GPU kernel"};
  }

  void launch(int rank, Stream) override {
    const std::size_t n = case_.elements(), es = dtype_size(case_.dtype);
    auto slice_begin = [&](int r) { return n * std::size_t(r) / std::size_t(world_); };
    barrier(rank);
    void* mine = scratch_->local(rank);
    for (std::size_t i = slice_begin(rank); i < slice_begin(rank + 1); ++i) {
      float s = 0.0f;
      for (int p = 0; p < world_; ++p) s += load_as_f32(in_->peer(rank, p), i, case_.dtype);
      store_from_f32(mine, i, case_.dtype, s);
    }
    barrier(rank);
    auto* out = static_cast<std::uint8_t*>(out_->local(rank));
    for (int p = 0; p < world_; ++p) {
      const auto* src = static_cast<const std::uint8_t*>(scratch_->peer(rank, p));
      std::copy(src + slice_begin(p) * es, src + slice_begin(p + 1) * es, out + slice_begin(p) * es);
    }
  }

 private:
  // Flag barrier: publish my monotonic epoch, wait (bounded) until every peer's is as new.
  void barrier(int rank) {
    const std::uint32_t e = ++epoch_[rank];
    std::atomic_ref<std::uint32_t>(*static_cast<std::uint32_t*>(flags_->local(rank)))
        .store(e, std::memory_order_release);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
    for (int p = 0; p < world_; ++p) {
      std::atomic_ref<std::uint32_t> flag(*static_cast<std::uint32_t*>(flags_->peer(rank, p)));
      while (std::int32_t(flag.load(std::memory_order_acquire) - e) < 0) {
        if (std::chrono::steady_clock::now() > deadline)
          throw CaseError("reference: rank " + std::to_string(rank) + " waited " +
                          std::to_string(timeout_s_) + " s for rank " + std::to_string(p) +
                          " at barrier epoch " + std::to_string(e) + "; the peer never arrived");
        std::this_thread::yield();
      }
    }
  }

  Case case_;
  int world_ = 1;
  double timeout_s_ = 10;
  std::unique_ptr<RankBuffers> flags_, scratch_;
  RankBuffers* in_ = nullptr;
  RankBuffers* out_ = nullptr;
  std::vector<std::uint32_t> epoch_;  // per rank; each entry touched by its own rank only
};

// Its traffic (arbench/traffic.hpp): a two-shot by loads: every rank reads its slice of every
// peer's input, then every owner's summed slice; waits: barrier, wave, barrier, wave.
Traffic reference_traffic(const TrafficQuery& q) {
  const double slice = double(q.c.bytes) / q.c.world;
  return one_schedule(q, [&] {
    return twoshot_schedule("reference (slices read, summed slices read)", {}, q.c.world, slice, slice, 1);
  });
}

}  // namespace

VariantEntry reference_entry() {
  VariantEntry e = host_entry({"reference", Family::allreduce,
                               "plain host all-reduce (barrier, reduce own slice in rank order, barrier, gather); the yardstick",
                               &reference_traffic},
                              [] { return std::make_unique<ReferenceAllReduce>(); });
  e.no_gpu_reason = "reference runs on the host backend only (use nccl on GPUs)";
  return e;
}

}  // namespace arbench
