#include "workload/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/core/oracle.hpp"
#include "workload/allreduce_workload.hpp"

namespace arbench {
namespace {

std::string element_text(const void* p, std::size_t i, DType t) {
  return std::to_string(load_as_f32(p, i, t));
}

class AllReduceWorkload final : public AllReduceWorkloadBase {
 public:
  AllReduceWorkload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed, bool signed_zeros)
      : AllReduceWorkloadBase(c, f, placement, seed), signed_zeros_(signed_zeros) {
    fill(f);
  }

  CheckResult check(Fabric& f) override {
    CheckResult res;
    std::vector<std::uint8_t> got(c_.bytes);
    for (int r = 0; r < world_; ++r) {
      if (!f.drives(r)) continue;  // its own process checks it (gather_check adds the counts up)
      const std::vector<std::uint8_t>& want = want_[alternating() ? in_->current(r) : 0];
      f.download(r, got.data(), bufs_.out->local(r), c_.bytes);
      const std::size_t n = c_.elements();
      res.checked_elements += n;
      std::size_t wrong = count_wrong(got.data(), want.data(), c_.dtype, n, signed_zeros_);
      if (wrong && res.first_error.empty()) {
        for (std::size_t i = 0; i < n; ++i) {
          if (!same_element(got.data(), want.data(), c_.dtype, i, signed_zeros_)) {
            res.first_error = "rank " + std::to_string(r) + " element " + std::to_string(i) + ": got " +
                              element_text(got.data(), i, c_.dtype) + ", want " + element_text(want.data(), i, c_.dtype);
            break;
          }
        }
      }
      res.wrong_elements += wrong;
    }
    return res;
  }

 private:
  // One pass over the ranks writes set s's inputs and adds them up (exact: small integers), so
  // the answer comes with the inputs at no extra hashing.
  void fill_set(Fabric& f, int set) override {
    const std::size_t n = c_.elements();
    const bool zero_sum = c_.in_place && kind() == Inputs::zero_sum;
    const std::uint64_t seed = seed_of(set);
    std::vector<int> sum(n, 0);
    std::vector<std::uint8_t> host(c_.bytes);
    for (int r = 0; r < world_; ++r) {
      const bool last = r == world_ - 1;
      for (std::size_t i = 0; i < n; ++i) {
        const int v = zero_sum && last ? -sum[i] : oracle_value(seed, r, i);
        sum[i] += v;
        store_from_f32(host.data(), i, c_.dtype, float(v));
      }
      // Every process adds up every rank's values (the answer, and the zero-sum last rank's
      // input, need them all) but writes only the ranks it drives: the others' processes do.
      if (!f.drives(r)) continue;
      f.upload(r, in_->buffers(set).local(r), host.data(), c_.bytes);
    }
    want_[set].resize(c_.bytes);
    for (std::size_t i = 0; i < n; ++i) store_from_f32(want_[set].data(), i, c_.dtype, float(sum[i]));
  }

  bool signed_zeros_;
  std::vector<std::uint8_t> want_[2];  // the answer of set A and of set B
};

}  // namespace

CheckResult gather_check(World& w, const CheckResult& mine) {
  if (!w.multi_process()) return mine;
  char head[192];
  std::snprintf(head, sizeof head, "%zu %zu %.17g %d %.17g %.17g %.17g\n", mine.wrong_elements, mine.checked_elements,
                mine.max_ulp_error, mine.lossy ? 1 : 0, mine.max_abs_err, mine.sum_sq_err, mine.sum_sq_ref);
  CheckResult all;
  for (const std::string& text : w.all_gather(head + mine.first_error, "gathering the checks")) {
    CheckResult one;
    std::istringstream in(text);
    int lossy = 0;
    std::string line;
    std::getline(in, line);  // sscanf, not >>: the error figures may be inf or nan
    std::sscanf(line.c_str(), "%zu %zu %lg %d %lg %lg %lg", &one.wrong_elements, &one.checked_elements,
                &one.max_ulp_error, &lossy, &one.max_abs_err, &one.sum_sq_err, &one.sum_sq_ref);
    std::getline(in, one.first_error, '\0');
    all.wrong_elements += one.wrong_elements;
    all.checked_elements += one.checked_elements;
    all.max_ulp_error = std::max(all.max_ulp_error, one.max_ulp_error);
    all.lossy = all.lossy || lossy != 0;
    all.max_abs_err = std::isnan(one.max_abs_err) ? one.max_abs_err : std::max(all.max_abs_err, one.max_abs_err);
    all.sum_sq_err += one.sum_sq_err;
    all.sum_sq_ref += one.sum_sq_ref;
    if (all.first_error.empty()) all.first_error = one.first_error;
  }
  return all;
}

WorkloadFootprint workload_footprint(const Case& c) {
  if (c.family == Family::allreduce_rmsnorm) return rmsnorm_workload_footprint(c);
  // two input sets (+ out); the two sets' oracle sums, and two staging copies at a time (fill:
  // input + poison; check: got)
  WorkloadFootprint f{c.bytes * (c.in_place ? 2 : 3), 4 * c.bytes, {c.bytes, c.bytes}};
  if (!c.in_place) f.buffers.push_back(c.bytes);
  return f;
}

std::unique_ptr<Workload> make_workload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed,
                                        double eps, bool signed_zeros) {
  if (c.family == Family::allreduce) return std::make_unique<AllReduceWorkload>(c, f, placement, seed, signed_zeros);
  return make_rmsnorm_workload(c, f, placement, seed, eps);
}

}  // namespace arbench
