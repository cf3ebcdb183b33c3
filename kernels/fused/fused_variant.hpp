// FusedVariant: the host-side half shared by the allreduce_rmsnorm variants on every fabric
// (host twins and CUDA kernels alike):
//   unfused-nccl     nccl all-reduce into a sum buffer, then the norm-only kernel
//   unfused-oneshot  oneshot-pull all-reduce into a sum buffer, then the same norm-only kernel
//   fused-oneshot    one kernel (include/arbench/algo/fused/fused_oneshot.hpp)
//   fused-twoshot    one kernel (include/arbench/algo/fused/fused_twoshot.hpp)
// It checks support, allocates scratch and per-rank state, builds each rank's arguments, turns a
// recorded timeout into a CaseError, and (unfused only) times the two halves alone in prepare():
// `allreduce_only_us` and `norm_only_us` in settings() feed the fusion accounting
// (bench/results/fusion_summary.hpp). Subclasses choose the grid and run kernels or twins.
// unfused-oneshot uses oneshot-pull because fused-oneshot runs the same pull protocol: the pair
// then differs only by the fusion, which is what the comparison is about.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/fused/fused_twoshot.hpp"
#include "arbench/algo/fused/norm_rows.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/variant.hpp"
#include "kernels/adapter_memory.hpp"
#include "kernels/fused/norm_io.hpp"
#include "kernels/sm_use.hpp"
#include "kernels/symm/symm_variant.hpp"
#include "kernels/variant_entry.hpp"

namespace arbench {

enum class FusedAlgo { unfused_nccl, unfused_oneshot, fused_oneshot, fused_twoshot };

// What each moves between ranks (fused_traffic.cpp; arbench/traffic.hpp): the norm is local.
Traffic unfused_nccl_traffic(const TrafficQuery& q);
Traffic fused_twoshot_traffic(const TrafficQuery& q);

// By FusedAlgo; the summary is the line for `arbench list` and README.
inline constexpr VariantText kFusedText[] = {
    {"unfused-nccl", Family::allreduce_rmsnorm, "nccl all-reduce, then one residual-add + RMSNorm kernel (baseline)",
     &unfused_nccl_traffic},
    {"unfused-oneshot", Family::allreduce_rmsnorm,
     "oneshot-pull all-reduce, then the same residual-add + RMSNorm kernel", &oneshot_pull_traffic},
    {"fused-oneshot", Family::allreduce_rmsnorm,
     "one kernel: barrier, pull every peer's rows, reduce, residual add, RMSNorm", &oneshot_pull_traffic},
    {"fused-twoshot", Family::allreduce_rmsnorm,
     "one kernel: reduce-scatter by token rows, add + RMSNorm the owned rows, all-gather r and y",
     &fused_twoshot_traffic},
};

inline const char* fused_algo_name(FusedAlgo a) { return text_of(kFusedText, a).name; }

inline constexpr const char* kUnfusedNcclNoHost = "NCCL needs GPUs; the host backend runs CPU twins only";

inline bool is_unfused(FusedAlgo a) { return a == FusedAlgo::unfused_nccl || a == FusedAlgo::unfused_oneshot; }

// Knobs for tests; production uses the defaults.
struct FusedOptions {
  std::uint32_t start_epoch = algo::kEpochStart;  // tests start near the 2^32 wrap-around
  bool time_components = true;                    // unfused: time both halves alone in prepare()
};

// Settings keys of the unfused variants' component times (microseconds, as text).
inline constexpr const char* kAllreduceOnlyKey = "allreduce_only_us";
inline constexpr const char* kNormOnlyKey = "norm_only_us";

class FusedVariant : public Variant {
 public:
  FusedVariant(FusedAlgo algo, FusedOptions opt) : algo_(algo), opt_(opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    const std::string me = fused_algo_name(algo_);
    if (c.family != Family::allreduce_rmsnorm) return Support::no(me + " is a fused all-reduce + RMSNorm");
    if (!is_unfused(algo_))
      if (std::string why = f.symmetric_unsupported_reason(); !why.empty()) return Support::no(why);
    if (c.world < 1 || c.world > algo::kLayoutMaxRanks)
      return Support::no("world size " + std::to_string(c.world) + " outside 1.." +
                         std::to_string(algo::kLayoutMaxRanks));
    if (c.tokens < 1 || c.hidden < 1) return Support::no(me + " needs tokens >= 1 and hidden >= 1");
    if (c.in_place) return Support::no(me + " writes separate outputs (no in-place form)");
    if (is_unfused(algo_)) return make_allreduce()->supports(allreduce_case(c), f);
    return Support::yes();
  }

  std::size_t scratch_bytes_per_rank(const Case& c, const Fabric& f, const Tuning& t) const override {
    if (is_unfused(algo_))  // the sum buffer, then whatever the all-reduce half allocates
      return c.bytes + make_allreduce()->scratch_bytes_per_rank(allreduce_case(c), f, t);
    return fused_scratch_size(c) + sizeof(algo::RankState);
  }

  void prepare(const Case& c, Fabric& f, const OpBuffers& b, const Tuning& t) override {
    const std::string me = fused_algo_name(algo_);
    if (!b.in || !has_norm_buffers(b))
      throw CaseError(me + ": the workload did not provide x, residual, weight, norm_out and residual_out");
    fabric_ = &f;
    dtype_ = c.dtype;
    world_ = f.world();
    tokens_ = c.tokens;
    hidden_ = c.hidden;
    eps_ = static_cast<float>(t.eps);
    bufs_ = b;
    timeout_s_ = f.timeout_s();
    for (int r = 0; r < world_; ++r)  // rows are moved as 16-byte packs (rmsnorm.hpp load_row_pack)
      for (const RankBuffers* buf : {b.in, b.residual, b.weight, b.norm_out, b.residual_out})
        if (!algo::is_pack_aligned(buf->local(r)))
          throw CaseError(me + ": rank " + std::to_string(r) +
                          "'s buffers are not 16-byte aligned; allocate them with Fabric::alloc");
    if (is_unfused(algo_)) {
      sum_ = f.alloc(c.bytes, Placement::local);
      inner_ = make_allreduce();
      OpBuffers ib;
      ib.in = b.in;
      ib.out = sum_.get();
      inner_->prepare(allreduce_case(c), f, ib, t);
      blocks_ = norm_blocks(tokens_);
      return;  // the components are timed in prepare_ops(), once every process's prepare() worked
    }
    const int rows = algo_ == FusedAlgo::fused_oneshot ? tokens_ : (tokens_ + world_ - 1) / world_;
    rows_ = rows;
    requested_blocks_ = t.blocks;
    blocks_ = algo::FusedLaunchPolicy::blocks(rows, device_sm_count(f), ranks_per_device(f), t.blocks);
    padded_packs_ = static_cast<std::size_t>(tokens_) * algo::row_packs(hidden_, dtype_);
    scratch_bytes_ = fused_scratch_size(c);
    scratch_ = f.alloc(scratch_bytes_, Placement::symmetric);
    init_state(f);
  }

  // Unfused: t(allreduce alone) and t(norm alone), for the fusion accounting. Ops, so not in
  // prepare() (variant.hpp).
  void prepare_ops(Fabric& f) override {
    if (is_unfused(algo_) && opt_.time_components) time_components(f);
  }

  // Unfused: the all-reduce here, the norm that reads its output in launch_after() (on the NCCL
  // fabric the all-reduce is enqueued only when the op's group ends).
  void launch(int rank, Stream stream) override {
    if (is_unfused(algo_))
      inner_->launch(rank, stream);
    else
      run_fused(fused_args(rank), blocks_, stream);
  }

  void launch_after(int rank, Stream stream) override {
    if (!is_unfused(algo_)) return;
    inner_->launch_after(rank, stream);
    run_norm(rank, norm_args(rank), blocks_, stream);
  }

  // Throws the first recorded timeout (lowest rank), naming rank, block, peer and flag.
  void check_errors() override {
    if (inner_) inner_->check_errors();
    if (state_) throw_first_timeout(*fabric_, *state_, fused_algo_name(algo_), timeout_s_);
  }

  std::vector<std::pair<std::string, std::string>> settings() const override {
    std::vector<std::pair<std::string, std::string>> s;
    if (inner_) {
      s = inner_->settings();
      for (auto& kv : s) kv.first = "allreduce_" + kv.first;
      s.push_back({"norm_blocks", std::to_string(blocks_)});
      if (allreduce_only_us_ >= 0) s.push_back({kAllreduceOnlyKey, std::to_string(allreduce_only_us_)});
      if (norm_only_us_ >= 0) s.push_back({kNormOnlyKey, std::to_string(norm_only_us_)});
    } else {
      s = {{"blocks", std::to_string(blocks_)}, {"scratch_bytes_per_rank", std::to_string(scratch_bytes_)}};
    }
    s.push_back({"threads", std::to_string(threads())});
    return s;
  }

  // Fused: the kernel's marks. Unfused: the all-reduce's (its exit renamed), then the norm
  // kernel's (algo::kNormMarks), in one record.
  std::vector<PhaseMark> phase_marks() const override {
    if (algo_ == FusedAlgo::fused_oneshot) return {std::begin(algo::kFusedOneshotMarks), std::end(algo::kFusedOneshotMarks)};
    if (algo_ == FusedAlgo::fused_twoshot) return {std::begin(algo::kFusedTwoshotMarks), std::end(algo::kFusedTwoshotMarks)};
    std::vector<PhaseMark> m = inner_ ? inner_->phase_marks() : std::vector<PhaseMark>{};
    if (m.empty() || m.size() + std::size(algo::kNormMarks) > static_cast<std::size_t>(kMaxPhaseMarks)) return {};
    m.back().name = "allreduce_exit";
    m.insert(m.end(), std::begin(algo::kNormMarks), std::end(algo::kNormMarks));
    return m;
  }
  void record_phases(RankBuffers* rec) override {
    phases_ = rec;
    if (inner_) inner_->record_phases(rec);
  }

  // No peer ever touches the case's buffers (peers meet in the variant's own scratch).
  Placement buffer_placement() const override { return Placement::local; }
  DataMover data_mover() const override {
    return algo_ == FusedAlgo::unfused_nccl ? DataMover::nccl : DataMover::peer_load_store;
  }

  // Fused: the one kernel's grid (FusedLaunchPolicy). Unfused: two kernels one after the other, so
  // the wider of the all-reduce's and the norm kernel's; the norm grid (a block per row, no
  // residency cap) counts at most the device's SMs.
  SmUse sms(const Case& c, const Fabric& f) const override {
    if (!is_unfused(algo_))
      return grid_sm_use(f, blocks_, [&](int sms) { return algo::FusedLaunchPolicy::blocks(rows_, sms, 1, requested_blocks_); });
    const SmUse norm = grid_sm_use(f, std::min(blocks_, device_sm_count(f)), [&](int sms) {
      return std::min(algo::FusedLaunchPolicy::norm_blocks(tokens_, 0), sms);
    });
    const SmUse ar = inner_ ? inner_->sms(allreduce_case(c), f) : SmUse{};
    if (!ar.known())
      return {-1, "unknown: the all-reduce half's SMs are (" + ar.basis + "); the norm kernel takes " +
                      std::to_string(norm.ctas)};
    return {std::max(ar.ctas, norm.ctas), norm.basis};
  }

 protected:
  virtual std::unique_ptr<Variant> make_allreduce() const = 0;  // unfused: the all-reduce half
  virtual int device_sm_count(const Fabric& f) const = 0;        // fused: SMs of rank 0's device
  virtual int ranks_per_device(const Fabric& f) const { return f.ranks_per_device(); }
  virtual int norm_blocks(int tokens) const = 0;
  virtual int threads() const = 0;
  virtual void run_norm(int rank, const algo::NormArgs& a, int blocks, Stream stream) = 0;
  virtual void run_fused(const algo::FusedArgs& a, int blocks, Stream stream) = 0;

  FusedAlgo algo_;
  FusedOptions opt_;
  DType dtype_ = DType::bf16;

 private:
  std::size_t fused_scratch_size(const Case& c) const {
    const std::size_t packs = static_cast<std::size_t>(c.tokens) * algo::row_packs(c.hidden, c.dtype);
    return algo::fused_scratch_bytes(packs, algo_ == FusedAlgo::fused_twoshot);
  }

  // The all-reduce half's case: the same message as an allreduce.
  Case allreduce_case(const Case& c) const {
    Case a = c;
    a.variant = algo_ == FusedAlgo::unfused_nccl ? "nccl" : "oneshot-pull";
    a.family = Family::allreduce;
    a.tokens = 0;
    a.hidden = 0;
    return a;
  }

  algo::NormIo io_for(int rank) const { return norm_io_of(bufs_, rank, hidden_, eps_); }

  algo::NormArgs norm_args(int rank) const {
    algo::NormArgs a;
    a.sum = sum_->local(rank);
    a.io = io_for(rank);
    a.tokens = tokens_;
    if (phases_ != nullptr) {
      a.phases = static_cast<std::uint64_t*>(phases_->local(rank));
      a.first_mark = static_cast<int>(inner_->phase_marks().size());
    }
    return a;
  }

  algo::FusedArgs fused_args(int rank) const {
    algo::FusedArgs a;
    a.s.in = bufs_.in->local(rank);
    a.s.n = static_cast<std::size_t>(tokens_) * static_cast<std::size_t>(hidden_);
    a.s.packs = padded_packs_;
    for (int p = 0; p < world_; ++p) a.s.scratch[p] = scratch_->peer(rank, p);
    a.s.scratch[rank] = scratch_->local(rank);
    a.s.state = static_cast<algo::RankState*>(state_->local(rank));
    a.s.timeout_ns = timeout_ns(timeout_s_);
    a.s.phases = phase_record(phases_, rank);
    a.s.rank = rank;
    a.s.world = world_;
    a.io = io_for(rank);
    a.tokens = tokens_;
    return a;
  }

  // t(allreduce alone) and t(norm alone), measured like a case (gated, max over ranks, median)
  // on this case's buffers, so the fusion accounting compares like with like in the same run.
  void time_components(Fabric& f) {
    constexpr int kWarmup = 2, kSamples = 10;
    const RankOp ar = op_of(*inner_);
    const RankOp norm([this](int rank, Stream s) { run_norm(rank, norm_args(rank), blocks_, s); });
    for (int i = 0; i < kWarmup; ++i) {
      f.run(ar);
      f.run(norm);
    }
    allreduce_only_us_ = median_us(f.time_isolated(ar, kSamples).samples);
    norm_only_us_ = median_us(f.time_isolated(norm, kSamples).samples);
    inner_->check_errors();
  }

  static double median_us(std::vector<double> s) {
    if (s.empty()) return -1;
    std::sort(s.begin(), s.end());
    const std::size_t m = s.size() / 2;
    return 1e6 * (s.size() % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]));
  }

  // Epoch counters and flags start "just before" start_epoch.
  void init_state(Fabric& f) {
    state_ = start_state(f, opt_.start_epoch, &algo::RankState::epoch);
    const std::uint32_t fill = algo::flag_fill(opt_.start_epoch);
    if (fill == 0u) return;
    std::vector<std::uint32_t> flags(algo::kFlagWords, fill);
    upload_driven(f, *scratch_, flags.data(), flags.size() * sizeof(std::uint32_t));
  }

  Fabric* fabric_ = nullptr;
  int world_ = 1, tokens_ = 0, hidden_ = 0, blocks_ = 1, rows_ = 0, requested_blocks_ = 0;
  float eps_ = 1e-6f;
  double timeout_s_ = 10.0;
  OpBuffers bufs_;
  std::size_t padded_packs_ = 0, scratch_bytes_ = 0;
  std::unique_ptr<RankBuffers> scratch_, state_, sum_;
  RankBuffers* phases_ = nullptr;
  std::unique_ptr<Variant> inner_;
  double allreduce_only_us_ = -1, norm_only_us_ = -1;
};

}  // namespace arbench
