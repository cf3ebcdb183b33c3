// The all-reduce workload of lossy variants (FP8 on the wire; docs/method.md, "Accuracy of the
// lossy variants"): random inputs of the dtype that change with every input set, cycling through
// the distributions of arbench/algo/fp8/fp8_bound.hpp by seed (normal, heavy-tailed, one outlier
// per block, wide range), the exact sum in double from the same inputs, and a check against the
// bound derived from the format and the scaling. Small integers (the exact variants' oracle)
// would not do: with power-of-two scales most of them are exact in e4m3, so quantization errors
// would go unseen. Each output element must be within its bound of the exact sum and bitwise
// equal on every rank; the check also reports the error figures (max_abs_err, rms_rel_err).
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "arbench/algo/fp8/fp8_bound.hpp"
#include "workload/allreduce_workload.hpp"

namespace arbench {
namespace {

class LossyAllReduceWorkload final : public AllReduceWorkloadBase {
 public:
  // Out of place only (make_lossy_workload).
  LossyAllReduceWorkload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed, int quantizations)
      : AllReduceWorkloadBase(c, f, placement, seed), quantizations_(quantizations) {
    fill(f);
  }

  CheckResult check(Fabric& f) override {
    CheckResult res;
    res.lossy = true;
    const std::size_t n = c_.elements(), es = dtype_size(c_.dtype);
    std::vector<std::uint8_t> got(c_.bytes), first(c_.bytes);
    int first_rank = -1;
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;
      const algo::Fp8Reference& ref = ref_[alternating() ? in_->current(r) : 0];
      f.download(r, got.data(), bufs_.out->local(r), c_.bytes);
      if (first_rank < 0) first = got, first_rank = r;
      res.checked_elements += n;
      for (std::size_t i = 0; i < n; ++i) {
        const double y = load_as_f32(got.data(), i, c_.dtype), err = std::fabs(y - ref.exact[i]);
        const bool agrees = std::memcmp(got.data() + i * es, first.data() + i * es, es) == 0;
        if (!(err <= ref.bound[i]) || !agrees) {  // NaN fails
          if (res.first_error.empty()) {
            std::ostringstream m;
            m << "rank " << r << " element " << i << ": got " << y << ", exact sum " << ref.exact[i];
            if (!agrees) m << " (rank " << first_rank << " got " << load_as_f32(first.data(), i, c_.dtype) << ")";
            else m << ", error " << err << " above the bound " << ref.bound[i] << " (docs/variants.md, FP8 on the wire)";
            res.first_error = m.str();
          }
          ++res.wrong_elements;
        }
        res.max_abs_err = std::isnan(err) || err > res.max_abs_err ? err : res.max_abs_err;
        res.sum_sq_err += err * err;
        res.sum_sq_ref += ref.exact[i] * ref.exact[i];
      }
    }
    return res;
  }

 private:
  void fill_set(Fabric& f, int set) override {
    const std::size_t n = c_.elements();
    const std::uint64_t seed = seed_of(set);
    const auto kind = static_cast<algo::Fp8Inputs>(seed % algo::kFp8InputKinds);
    std::vector<std::vector<float>> values(static_cast<std::size_t>(world_), std::vector<float>(n));
    std::vector<std::uint8_t> host(c_.bytes);
    for (int r = 0; r < world_; ++r) {
      for (std::size_t i = 0; i < n; ++i) {
        store_from_f32(host.data(), i, c_.dtype, algo::fp8_input(seed, r, i, kind));
        values[std::size_t(r)][i] = load_as_f32(host.data(), i, c_.dtype);  // as the dtype holds it
      }
      if (f.drives(r)) f.upload(r, in_->buffers(set).local(r), host.data(), c_.bytes);
    }
    ref_[set] = algo::fp8_reference(values, c_.dtype, quantizations_);
  }

  int quantizations_;
  algo::Fp8Reference ref_[2];  // set A's and set B's exact sums and bounds
};

}  // namespace

std::unique_ptr<Workload> make_lossy_workload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed,
                                              int quantizations) {
  if (c.family != Family::allreduce || c.in_place)
    throw CaseError("the lossy check covers out-of-place all-reduce only (" + c.variant + ")");
  return std::make_unique<LossyAllReduceWorkload>(c, f, placement, seed, quantizations);
}

}  // namespace arbench
