// RingVariant: the host-side half of the native `ring` all-reduce, shared by the host twin
// (kernels/ring/ring_twin.cpp) and the CUDA kernel (kernels/ring/ring.cu): support, ring order, policy
// (channels, chunk), scratch and state, each rank's RingArgs, and error records -> CaseError.
// Subclasses only say how many channels fit at once and run one op. Header-only so both the
// plain-C++ twin library and the CUDA kernel library can use it.
#pragma once

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/epoch.hpp"
#include "arbench/algo/ring/ring.hpp"
#include "arbench/algo/ring/ring_layout.hpp"
#include "arbench/algo/ring/ring_order.hpp"
#include "arbench/algo/ring/ring_policy.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"
#include "kernels/adapter_memory.hpp"
#include "kernels/ring/ring_order_choice.hpp"
#include "kernels/sm_use.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {

// What it moves between ranks (ring_traffic.cpp; arbench/traffic.hpp).
Traffic ring_traffic(const TrafficQuery& q);

inline constexpr VariantText kRingText{
    "ring", Family::allreduce,
    "native ring: reduce-scatter + all-gather over 2(N-1) pipelined steps, pushed to the next rank", &ring_traffic};

// Knobs for tests; production uses the defaults.
struct RingOptions {
  std::uint32_t start_seq = algo::kEpochStart;  // tests start near the 2^32 wrap-around
  bool skip_credit_wait = false;                // the credit test: senders ignore credits
  int slow_rank = -1;                           // the credit test: a slow receiver
  std::uint64_t consume_delay_ns = 0;
};

// The message a person reads for a ring error record (host only).
inline std::string describe_ring_error(const algo::ErrorRecord& r, double timeout_s) {
  const auto kind = static_cast<algo::WaitKind>(r.kind);
  char buf[640];
  if (kind == algo::kRingOverwrite) {
    std::snprintf(buf, sizeof buf,
                  "ring: rank %d channel %d: receive slot of transfer %u was overwritten by rank %d "
                  "(with transfer %u) before it was consumed: the credit protocol was bypassed or "
                  "broken; results of this op are wrong.",
                  r.rank, r.block, r.expected, r.peer, r.seen);
  } else {
    const bool credit = kind == algo::kRingCreditWait;
    std::snprintf(buf, sizeof buf,
                  "ring: rank %d channel %d waited %.3g s for %s %u from rank %d (last seen %u); "
                  "rank %d never got there (crashed, hung, or not launched). Check that every rank "
                  "runs the same op sequence; raise the bound with a larger --timeout if the peer is "
                  "merely slow.",
                  r.rank, r.block, timeout_s, credit ? "the credit of transfer" : "transfer", r.expected,
                  r.peer, r.seen, r.peer);
  }
  return buf;
}

// The ring's phase marks at `world` ranks (layout: algo::ring_exit_mark in ring.hpp).
inline std::vector<PhaseMark> ring_phase_marks(int world) {
  static const auto names = [] {  // per world size, so every name outlives the returned marks
    std::vector<std::vector<std::string>> all(kMaxRanks + 1);
    for (int w = 1; w <= kMaxRanks; ++w) {
      auto& n = all[static_cast<std::size_t>(w)];
      n.push_back("entry");
      for (int s = 0; s < algo::ring_steps(w); ++s) {
        n.push_back("step" + std::to_string(s) + "_data");
        n.push_back("step" + std::to_string(s) + "_sent");
      }
      n.insert(n.end(), {"drain_data", "drained", "exit"});
    }
    return all;
  }();
  std::vector<PhaseMark> marks;
  if (world < 1 || world > kMaxRanks) return marks;
  const auto& n = names[static_cast<std::size_t>(world)];
  for (std::size_t i = 0; i < n.size(); ++i) {
    const bool last = i + 1 == n.size();
    const PhaseBucket b = i == 0 ? PhaseBucket::entry
                          : last ? PhaseBucket::exit
                                 : (i % 2 == 1 ? PhaseBucket::wait : PhaseBucket::reduce);
    marks.push_back({n[i].c_str(), b});
  }
  return marks;
}

class RingVariant : public Variant {
 public:
  explicit RingVariant(RingOptions opt) : opt_(opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (c.family != Family::allreduce) return Support::no("ring is an all-reduce, not a fused op");
    if (std::string why = f.symmetric_unsupported_reason(); !why.empty())
      return Support::no("ring pushes into peers' receive slots and needs symmetric memory: " + why);
    if (c.world < 1 || c.world > kMaxRanks)
      return Support::no("world size " + std::to_string(c.world) + " outside 1.." + std::to_string(kMaxRanks));
    return Support::yes();
  }

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& f, const Tuning& t) const override {
    return algo::ring_scratch_bytes(geometry(c, f, t)) + sizeof(algo::RingState);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    if (b.in == nullptr) throw CaseError("ring: no input buffer");
    fabric_ = &f;
    dtype_ = c.dtype;
    world_ = f.world();
    RingOrderChoice ro = choose_ring_order(t, world_, "ring", [&] { return default_order(f); }, default_order_source());
    order_ = std::move(ro.order);
    order_source_ = std::move(ro.source);
    n_ = c.elements();
    requested_channels_ = t.ring_channels;
    g_ = geometry(c, f, t);
    timeout_s_ = f.timeout_s();
    io_ = aligned_io(b, world_, "ring");
    scratch_bytes_ = algo::ring_scratch_bytes(g_);
    scratch_ = f.alloc(scratch_bytes_, Placement::symmetric);
    init_state(f);
  }

  // Throws a recorded error naming rank, channel, peer and transfer. One fault stalls the whole
  // ring, so most ranks record a wait for a neighbour that is itself stuck; the record shown is
  // the root cause: an overwrite (a protocol violation) first, else a wait for a peer that
  // recorded nothing (the rank that is really missing), else the lowest rank's. In a
  // multi-process run a process sees its own rank's record only; the harness then reports the
  // lowest failing rank's.
  void check_errors() override {
    if (!state_) return;
    std::vector<algo::ErrorRecord> recs(static_cast<std::size_t>(world_));
    for (int r = 0; r < world_; ++r) {
      if (!fabric_->drives(r)) continue;  // its own process checks it
      algo::RingState st{};
      fabric_->download(r, &st, state_->local(r), sizeof st);
      recs[static_cast<std::size_t>(r)] = st.error;
    }
    for (const auto& e : recs)
      if (e.claimed != 0u && static_cast<algo::WaitKind>(e.kind) == algo::kRingOverwrite)
        throw CaseError(describe_ring_error(e, timeout_s_));
    if (const algo::ErrorRecord* e = root_cause_record(recs)) throw CaseError(describe_ring_error(*e, timeout_s_));
  }

  std::vector<PhaseMark> phase_marks() const override { return ring_phase_marks(world_); }
  void record_phases(RankBuffers* rec) override { phases_ = rec; }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    return {{"ring_order", algo::ring_order_text(order_)},
            {"ring_order_source", order_source_},
            {"ring_channels", std::to_string(g_.channels)},
            {"ring_chunk", std::to_string(g_.chunk_packs * algo::kPackBytes)},
            {"ring_slots", std::to_string(algo::RingPolicy::kSlots)},
            {"threads", std::to_string(threads())},
            {"scratch_bytes_per_rank", std::to_string(scratch_bytes_)}};
  }

  const algo::RingGeometry& geometry() const { return g_; }

  // One block per channel: the channels the policy gives (on the host backend, on the modelled
  // device's SMs, the GPU's channel cap).
  SmUse sms(const Case& c, const Fabric& f) const override {
    return grid_sm_use(f, g_.channels, [&](int sms) {
      return algo::RingPolicy::channels(c.bytes, gpu_channel_cap(sms, 1), requested_channels_);
    });
  }

  // The GPU kernel's channel cap: channels wait on their neighbours' channels, so every block of
  // every rank sharing a device must be resident at once: the ranks share out its SMs.
  static int gpu_channel_cap(int sms, int ranks_per_device) {
    const int per_rank = sms / (ranks_per_device > 0 ? ranks_per_device : 1);
    return per_rank < 1 ? 1 : per_rank;
  }

 protected:
  // The ring order without --ring-order: ranks 0..N-1 here; the GPU variant sorts by PCI bus.
  virtual std::vector<int> default_order(const Fabric& /*f*/) const {
    return algo::ring_order_or_default({}, world_);
  }
  virtual std::string default_order_source() const { return "rank order"; }
  // Most channels that can run at once on this fabric.
  virtual int channel_cap(const Fabric& f) const = 0;

  // Packs, channels and chunk of case `c` on `f` (the policy, or --ring-channels/--ring-chunk).
  algo::RingGeometry geometry(const Case& c, const Fabric& f, const Tuning& t) const {
    algo::RingGeometry g;
    g.packs = algo::pack_count(c.elements(), c.dtype);
    g.world = f.world();
    g.channels = algo::RingPolicy::channels(c.bytes, channel_cap(f), t.ring_channels);
    g.chunk_packs = algo::RingPolicy::chunk_packs(c.bytes, g.world, g.channels, t.ring_chunk);
    return g;
  }
  virtual int threads() const = 0;

  algo::RingArgs args_for(int rank) const {
    const algo::RingNeighbours nb = algo::ring_neighbours(order_, rank);
    algo::RingArgs a;
    a.in = io_.in->local(rank);
    a.out = io_.out->local(rank);
    a.n = n_;
    a.g = g_;
    a.own = scratch_->local(rank);
    a.next = world_ > 1 ? scratch_->peer(rank, nb.next) : a.own;
    a.prev = world_ > 1 ? scratch_->peer(rank, nb.prev) : a.own;
    a.state = static_cast<algo::RingState*>(state_->local(rank));
    a.timeout_ns = timeout_ns(timeout_s_);
    a.phases = phase_record(phases_, rank);
    a.rank = rank;
    a.pos = nb.pos;
    a.prev_rank = nb.prev;
    a.next_rank = nb.next;
    a.test_skip_credit_wait = opt_.skip_credit_wait ? 1 : 0;
    a.test_slow_rank = opt_.slow_rank;
    a.test_consume_delay_ns = opt_.consume_delay_ns;
    return a;
  }

  RingOptions opt_;
  DType dtype_ = DType::bf16;
  int world_ = 1;
  int requested_channels_ = 0;

 private:
  // Counters, credits and flags start "just before" start_seq.
  void init_state(Fabric& f) {
    state_ = start_state(f, opt_.start_seq, &algo::RingState::seq);
    const std::uint32_t fill = algo::flag_fill(opt_.start_seq);
    if (fill == 0u) return;
    std::vector<std::uint32_t> words(algo::kRingDataOffset / sizeof(std::uint32_t), fill);
    upload_driven(f, *scratch_, words.data(), algo::kRingDataOffset);
  }

  Fabric* fabric_ = nullptr;
  std::size_t n_ = 0;
  algo::RingGeometry g_{};
  std::vector<int> order_;
  std::string order_source_;
  double timeout_s_ = 10.0;
  std::size_t scratch_bytes_ = 0;
  ReduceIo io_;
  std::unique_ptr<RankBuffers> scratch_, state_;
  RankBuffers* phases_ = nullptr;
};

}  // namespace arbench
