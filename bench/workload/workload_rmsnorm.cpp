// Workload of the allreduce_rmsnorm family: x per rank, residual and weight identical on every
// rank (oracle inputs, workload/rmsnorm_reference.hpp), norm_out and residual_out poisoned with NaN
// bytes before each op. The check reads every rank's outputs back and counts as wrong
//   - every element of norm_out further than rmsnorm_tolerance_ulp() from the fp64 reference,
//     every element of residual_out that is not exact (the oracle inputs make r exact), and any
//     NaN (an element nobody wrote is infinitely far), and
//   - every element that differs bitwise from rank 0's (all ranks must agree exactly).
// max_ulp_error is the worst error over both outputs and all ranks.
#include <cstring>
#include <vector>

#include "arbench/core/errors.hpp"
#include "workload/alternating.hpp"
#include "workload/rmsnorm_reference.hpp"
#include "workload/workload.hpp"

namespace arbench {
namespace {

class RmsnormWorkload final : public Workload {
 public:
  RmsnormWorkload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed, double eps)
      : Workload(seed), c_(c), eps_(eps), world_(f.world()) {
    if (c.tokens < 1 || c.hidden < 1)
      throw UsageError("case " + c.name() + ": the fused family needs tokens >= 1 and hidden >= 1");
    n_ = static_cast<std::size_t>(c.tokens) * static_cast<std::size_t>(c.hidden);
    bytes_ = n_ * dtype_size(c.dtype);
    const std::size_t weight_bytes = static_cast<std::size_t>(c.hidden) * dtype_size(c.dtype);
    // Every input twice: a timed phase alternates between two sets (workload/alternating.hpp).
    x_ = std::make_unique<AlternatingBuffers>(f.alloc(bytes_, placement), f.alloc(bytes_, placement), world_);
    residual_ = std::make_unique<AlternatingBuffers>(f.alloc(bytes_, placement), f.alloc(bytes_, placement), world_);
    weight_ = std::make_unique<AlternatingBuffers>(f.alloc(weight_bytes, placement), f.alloc(weight_bytes, placement),
                                                   world_);
    norm_out_ = f.alloc(bytes_, placement);
    residual_out_ = f.alloc(bytes_, placement);
    bufs_.in = x_.get();
    bufs_.residual = residual_.get();
    bufs_.weight = weight_.get();
    bufs_.norm_out = norm_out_.get();
    bufs_.residual_out = residual_out_.get();
    fill(f);
  }

  const OpBuffers& buffers() const override { return bufs_; }
  void before_op(int rank) override {
    for (AlternatingBuffers* b : {x_.get(), residual_.get(), weight_.get()}) b->before_op(rank);
  }

  // The family has no in-place form, so every input set is the oracle's (Inputs::zero_sum is
  // not needed). The fp64 reference of each set follows its seed.
  void fill(Fabric& f) override {
    for (AlternatingBuffers* b : {x_.get(), residual_.get(), weight_.get()}) b->alternate(alternating());
    for (int s = 0; s < (alternating() ? 2 : 1); ++s) fill_set(f, s);
    const std::vector<std::uint8_t> poison(bytes_, 0xff);  // 0xff..: NaN in every dtype
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;  // its own process fills it
      f.upload(r, bufs_.norm_out->local(r), poison.data(), bytes_);
      f.upload(r, bufs_.residual_out->local(r), poison.data(), bytes_);
    }
  }

  CheckResult check(Fabric& f) override {
    CheckResult res;
    std::vector<std::uint8_t> y0(bytes_), r0(bytes_), y(bytes_), r(bytes_);
    share_rank0_outputs(f, y0, r0);
    for (int rank = 0; rank < world_; ++rank) {
      if (!f.drives(rank)) continue;  // its own process checks it (gather_check adds the counts up)
      auto& yb = rank == 0 ? y0 : y;
      auto& rb = rank == 0 ? r0 : r;
      f.download(rank, yb.data(), bufs_.norm_out->local(rank), bytes_);
      f.download(rank, rb.data(), bufs_.residual_out->local(rank), bytes_);
      const RmsnormReference& ref = ref_[alternating() ? x_->current(rank) : 0];
      compare(res, rank, "norm_out", yb, y0, ref.y, rmsnorm_tolerance_ulp(c_.dtype));
      compare(res, rank, "residual_out", rb, r0, ref.r, 0.0);  // exact for the oracle inputs
    }
    return res;
  }

 private:
  // Writes input set s (x of every rank, residual, weight) and its fp64 reference.
  void fill_set(Fabric& f, int set) {
    const DType t = c_.dtype;
    const std::uint64_t seed = seed_of(set);
    if (ref_seed_[set] != seed || ref_[set].y.empty()) {
      ref_[set] = rmsnorm_reference(t, c_.tokens, c_.hidden, world_, seed, eps_);
      ref_seed_[set] = seed;
    }
    std::vector<std::uint8_t> host(bytes_);
    for (std::size_t i = 0; i < n_; ++i) store_from_f32(host.data(), i, t, rmsnorm_residual(seed, i));
    const std::vector<std::uint8_t> residual = host;
    std::vector<std::uint8_t> weight(static_cast<std::size_t>(c_.hidden) * dtype_size(t));
    for (std::size_t j = 0; j < static_cast<std::size_t>(c_.hidden); ++j)
      store_from_f32(weight.data(), j, t, rmsnorm_weight(seed, j));
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;  // its own process fills it
      for (std::size_t i = 0; i < n_; ++i) store_from_f32(host.data(), i, t, rmsnorm_x(seed, r, i));
      f.upload(r, x_->buffers(set).local(r), host.data(), bytes_);
      f.upload(r, residual_->buffers(set).local(r), residual.data(), bytes_);
      f.upload(r, weight_->buffers(set).local(r), weight.data(), weight.size());
    }
  }

  // In a multi-process run, the process driving rank 0 sends rank 0's outputs to the others, so
  // every process can hold its rank to rank 0's bits (collective: every process calls check).
  void share_rank0_outputs(Fabric& f, std::vector<std::uint8_t>& y0, std::vector<std::uint8_t>& r0) const {
    World& w = f.processes();
    if (!w.multi_process()) return;
    std::string both;
    if (f.drives(0)) {
      f.download(0, y0.data(), bufs_.norm_out->local(0), bytes_);
      f.download(0, r0.data(), bufs_.residual_out->local(0), bytes_);
      both.assign(y0.begin(), y0.end());
      both.append(r0.begin(), r0.end());
    }
    w.broadcast(both, 0, "sharing rank 0's outputs for the check");
    std::memcpy(y0.data(), both.data(), bytes_);
    std::memcpy(r0.data(), both.data() + bytes_, bytes_);
  }

  // One output of one rank against the reference and against rank 0's bytes.
  void compare(CheckResult& res, int rank, const char* what, const std::vector<std::uint8_t>& got,
               const std::vector<std::uint8_t>& rank0, const std::vector<double>& want, double tol) const {
    const DType t = c_.dtype;
    const std::size_t es = dtype_size(t);
    for (std::size_t i = 0; i < n_; ++i) {
      const double g = load_as_f32(got.data(), i, t);
      const double err = ulp_error(t, g, want[i]);
      const bool differs = std::memcmp(got.data() + i * es, rank0.data() + i * es, es) != 0;
      ++res.checked_elements;
      if (err > res.max_ulp_error) res.max_ulp_error = err;
      if (err <= tol && !differs) continue;
      ++res.wrong_elements;
      if (!res.first_error.empty()) continue;
      const std::size_t h = static_cast<std::size_t>(c_.hidden);
      res.first_error = "rank " + std::to_string(rank) + " " + what + " token " + std::to_string(i / h) +
                        " element " + std::to_string(i % h) + ": got " + std::to_string(g) + ", want " +
                        std::to_string(want[i]) + " (" + std::to_string(err) + " ULP; tolerance " +
                        std::to_string(tol) + ")" + (differs ? ", and it differs from rank 0's bits" : "");
    }
  }

  Case c_;
  double eps_;
  int world_;
  std::size_t n_ = 0, bytes_ = 0;
  std::unique_ptr<AlternatingBuffers> x_, residual_, weight_;
  std::unique_ptr<RankBuffers> norm_out_, residual_out_;
  OpBuffers bufs_;
  RmsnormReference ref_[2];          // of set A and set B
  std::uint64_t ref_seed_[2] = {0, 0};
};

}  // namespace

WorkloadFootprint rmsnorm_workload_footprint(const Case& c) {
  const std::size_t n = static_cast<std::size_t>(c.tokens) * static_cast<std::size_t>(c.hidden);
  const std::size_t bytes = n * dtype_size(c.dtype), weight = static_cast<std::size_t>(c.hidden) * dtype_size(c.dtype);
  // two sets of x, residual and weight, norm_out, residual_out; two fp64 references (r and y)
  // and check()'s four staging copies (rank 0's and this rank's y and r)
  return {6 * bytes + 2 * weight, 4 * n * sizeof(double) + 4 * bytes,
          {bytes, bytes, bytes, bytes, weight, weight, bytes, bytes}};
}

std::unique_ptr<Workload> make_rmsnorm_workload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed,
                                                double eps) {
  return std::make_unique<RmsnormWorkload>(c, f, placement, seed, eps);
}

}  // namespace arbench
