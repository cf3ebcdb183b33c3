// SymmVariant: the host-side half shared by oneshot-pull, oneshot-push and twoshot, on every
// fabric (host twins and CUDA kernels alike): checks support, allocates the symmetric scratch and
// the per-rank state, builds each rank's SymmArgs, and turns a recorded timeout into a CaseError.
// Subclasses only choose the grid and run one op (launch). Header-only so both the plain-C++
// twin library and the CUDA kernel library can use it.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/launch_policy.hpp"
#include "arbench/algo/symm/oneshot_pull.hpp"
#include "arbench/algo/symm/oneshot_push.hpp"
#include "arbench/algo/symm/twoshot.hpp"
#include "arbench/algo/symm_layout.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"
#include "kernels/adapter_memory.hpp"
#include "kernels/sm_use.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {

enum class SymmAlgo { oneshot_pull, oneshot_push, twoshot };

// What each moves between ranks (symm_traffic.cpp; arbench/traffic.hpp).
Traffic oneshot_pull_traffic(const TrafficQuery& q);
Traffic oneshot_push_traffic(const TrafficQuery& q);
Traffic twoshot_traffic(const TrafficQuery& q);

// By SymmAlgo.
inline constexpr VariantText kSymmText[] = {
    {"oneshot-pull", Family::allreduce,
     "barrier, every rank reads all peers' data and reduces it (one flag round trip)", &oneshot_pull_traffic},
    {"oneshot-push", Family::allreduce,
     "every rank writes its data into each peer's scratch with in-band LL flags; no barrier", &oneshot_push_traffic},
    {"twoshot", Family::allreduce, "reduce-scatter (each rank owns 1/N) then all-gather, on symmetric memory",
     &twoshot_traffic},
};

inline const char* symm_algo_name(SymmAlgo a) { return text_of(kSymmText, a).name; }

// Knobs for tests; production uses the defaults.
struct SymmOptions {
  std::uint32_t start_epoch = algo::kEpochStart;  // tests start near the 2^32 wrap-around
};

class SymmVariant : public Variant {
 public:
  SymmVariant(SymmAlgo algo, SymmOptions opt) : algo_(algo), opt_(opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (c.family != Family::allreduce)
      return Support::no(std::string(label()) + " is an all-reduce, not a fused op");
    if (std::string why = f.symmetric_unsupported_reason(); !why.empty()) return Support::no(why);
    if (c.world < 1 || c.world > algo::kLayoutMaxRanks)
      return Support::no("world size " + std::to_string(c.world) + " outside 1.." +
                         std::to_string(algo::kLayoutMaxRanks));
    return Support::yes();
  }

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& f, const Tuning&) const override {
    return scratch_size(slot_packs(c.elements(), c.dtype), f.world()) + sizeof(algo::RankState);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    if (b.in == nullptr) throw CaseError(std::string(label()) + ": no input buffer");
    fabric_ = &f;
    dtype_ = c.dtype;
    world_ = f.world();
    n_ = c.elements();
    packs_ = slot_packs(n_, c.dtype);
    requested_blocks_ = t.blocks;
    blocks_ = choose_blocks(f, t, packs_);
    timeout_s_ = f.timeout_s();
    io_ = aligned_io(b, world_, label());
    scratch_bytes_ = scratch_size(packs_, world_);
    scratch_ = f.alloc(scratch_bytes_, Placement::symmetric);
    init_state(f);
  }

  // Throws the first recorded timeout (lowest rank), naming rank, block, peer and flag.
  void check_errors() override {
    if (state_) throw_first_timeout(*fabric_, *state_, label(), timeout_s_);
  }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    return {{"blocks", std::to_string(blocks_)},
            {"threads", std::to_string(threads())},
            {"scratch_bytes_per_rank", std::to_string(scratch_bytes_)}};
  }

  std::vector<PhaseMark> phase_marks() const override {
    switch (algo_) {
      case SymmAlgo::oneshot_pull: return {std::begin(algo::kOneshotPullMarks), std::end(algo::kOneshotPullMarks)};
      case SymmAlgo::oneshot_push: return {std::begin(algo::kOneshotPushMarks), std::end(algo::kOneshotPushMarks)};
      case SymmAlgo::twoshot: return {std::begin(algo::kTwoshotMarks), std::end(algo::kTwoshotMarks)};
    }
    return {};
  }
  void record_phases(RankBuffers* rec) override { phases_ = rec; }

  int blocks() const { return blocks_; }

  SmUse sms(const Case& /*c*/, const Fabric& f) const override {
    return grid_sm_use(f, blocks_, [&](int sms) { return grid_for(sms, 1, requested_blocks_, packs_); });
  }

 protected:
  virtual int choose_blocks(const Fabric& f, const Tuning& t, std::size_t packs) const = 0;
  // The CUDA kernel's grid on a device of `sms` SMs shared by `ranks_per_device` ranks (--blocks:
  // `requested`): what the GPU variant launches and what sms() reports, one function for both.
  virtual int grid_for(int sms, int ranks_per_device, int requested, std::size_t packs) const {
    return algo::SymmLaunchPolicy::blocks(packs, sms, ranks_per_device, requested);
  }
  virtual int threads() const = 0;
  // Staging packs of one epoch slot (SymmArgs::packs): one per input pack for the exact payload;
  // the FP8 variants (kernels/fp8/) hold their wire units there.
  virtual std::size_t slot_packs(std::size_t n, DType t) const { return algo::pack_count(n, t); }
  // The variant's name in messages.
  virtual const char* label() const { return symm_algo_name(algo_); }
  // The case's element count (set before choose_blocks).
  std::size_t elements() const { return n_; }

  algo::SymmArgs args_for(int rank) const {
    algo::SymmArgs a;
    a.in = io_.in->local(rank);
    a.out = io_.out->local(rank);
    a.n = n_;
    a.packs = packs_;
    for (int p = 0; p < world_; ++p) a.scratch[p] = scratch_->peer(rank, p);
    a.scratch[rank] = scratch_->local(rank);
    a.state = static_cast<algo::RankState*>(state_->local(rank));
    a.timeout_ns = timeout_ns(timeout_s_);
    a.phases = phase_record(phases_, rank);
    a.rank = rank;
    a.world = world_;
    return a;
  }

  SymmAlgo algo_;
  SymmOptions opt_;
  DType dtype_ = DType::bf16;

 private:
  // Epoch counters start "just before" start_epoch; flags too (and oneshot-push's LL lines).
  void init_state(Fabric& f) {
    state_ = start_state(f, opt_.start_epoch, &algo::RankState::epoch);
    const std::uint32_t fill = algo::flag_fill(opt_.start_epoch);
    if (fill == 0u) return;
    std::vector<unsigned char> img(scratch_bytes_, 0);
    auto* flags = reinterpret_cast<std::uint32_t*>(img.data());
    for (std::size_t i = 0; i < algo::kFlagWords; ++i) flags[i] = fill;
    if (algo_ == SymmAlgo::oneshot_push) {
      const algo::LlLine line = algo::ll_fill(fill);
      const std::size_t lines = (scratch_bytes_ - algo::kDataOffset) / sizeof(algo::LlLine);
      for (std::size_t i = 0; i < lines; ++i)
        std::memcpy(img.data() + algo::kDataOffset + i * sizeof line, &line, sizeof line);
    }
    upload_driven(f, *scratch_, img.data(), img.size());
  }

  Fabric* fabric_ = nullptr;
  int world_ = 1;
  std::size_t n_ = 0;
  std::size_t packs_ = 0;
  int blocks_ = 1;
  int requested_blocks_ = 0;
  double timeout_s_ = 10.0;
  // One-shot push lands every peer's data in LL lines (data + flag), the others stage one copy.
  std::size_t scratch_size(std::size_t packs, int world) const {
    return algo_ == SymmAlgo::oneshot_push ? algo::ll_scratch_bytes(packs, world) : algo::staging_scratch_bytes(packs);
  }

  std::size_t scratch_bytes_ = 0;
  ReduceIo io_;
  std::unique_ptr<RankBuffers> scratch_, state_;
  RankBuffers* phases_ = nullptr;
};

}  // namespace arbench
