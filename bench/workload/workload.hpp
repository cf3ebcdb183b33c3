// Workload: the buffers of one case, their oracle inputs and the check of the results.
// One per family: allreduce (exact, bitwise against the oracle sum) and allreduce_rmsnorm
// (against an fp64 host reference with a tolerance). Host-only: it talks to the Fabric
// interface, so it is tested on the host fabric.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/case.hpp"
#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"
#include "arbench/world.hpp"

namespace arbench {

struct CheckResult {
  std::size_t wrong_elements = 0;  // elements outside tolerance (allreduce: not bit-exact)
  std::size_t checked_elements = 0;
  double max_ulp_error = 0;        // fused family: worst error in output-dtype ULPs
  std::string first_error;         // "rank 3 element 17: got 5, want 4" (empty when all right)
  // Lossy variants (workload_lossy.cpp): the error against the exact sum, over the checked
  // elements: the largest, and the sums of squares of the error and of the exact sum (their
  // ratio's root is CaseResult::rms_rel_err; sums so that processes' checks add up).
  bool lossy = false;
  double max_abs_err = 0, sum_sq_err = 0, sum_sq_ref = 0;
};

// What the next input set holds (Workload::next_inputs).
enum class Inputs : std::uint8_t {
  // The oracle values of the next seed: an exact, non-zero sum almost everywhere.
  oracle,
  // In-place all-reduce only: the last rank's input is minus the sum of the others', so the sum
  // is exactly 0 in every element. In-place ops re-reduce their own output; from these inputs
  // any number of ops >= 1 leaves exact zeros, while a rank whose ops wrote nothing still holds
  // its non-zero input. Families without an in-place form treat it as `oracle`.
  zero_sum,
};

// The buffers of one case, their inputs and the check of the outputs. Inputs come in sets, one
// per seed: construction writes the set of the run's seed; next_inputs() moves to seed + 1,
// seed + 2, ... so the harness can give each checked phase inputs no earlier op has read.
// Every input buffer is held twice (workload/alternating.hpp): a timed phase reads two sets in
// turn (next_alternating_inputs), so an op that reads a slot an earlier op left behind gets the
// other set's numbers and a wrong result the check sees.
class Workload {
 public:
  virtual ~Workload() = default;
  virtual const OpBuffers& buffers() const = 0;
  // (Re)write the current input set(s) and poison the outputs (NaN bytes), so an element no rank
  // wrote is caught.
  virtual void fill(Fabric& f) = 0;
  // Read every rank's outputs back and compare with the answer of the input set that rank's last
  // op read (all ranks must also agree bitwise).
  virtual CheckResult check(Fabric& f) = 0;
  // Before each op of `rank` (the harness's op calls it): when alternating, that op reads the
  // other input set than its previous one.
  virtual void before_op(int rank) = 0;
  // Move to the next input set (the seed advances by one), write it and poison the outputs: an
  // output left over from an earlier op, or an op that wrote nothing, is then a wrong result.
  // Every op reads that one set.
  void next_inputs(Fabric& f, Inputs kind = Inputs::oracle) {
    ++seed_;
    kind_ = kind;
    alternating_ = false;
    fill(f);
  }
  // Move to the next two input sets (seeds + 1 and + 2), write both and poison the outputs; the
  // ops then read them in turn, the first op set A.
  void next_alternating_inputs(Fabric& f, Inputs kind = Inputs::oracle) {
    seed_ += 2;
    kind_ = kind;
    alternating_ = true;
    fill(f);
  }
  std::uint64_t seed() const { return seed_; }
  bool alternating() const { return alternating_; }

 protected:
  explicit Workload(std::uint64_t seed) : seed_(seed) {}
  Inputs kind() const { return kind_; }
  // The seed of input set `s` (0: A, 1: B; one set: always the current seed).
  std::uint64_t seed_of(int s) const { return alternating_ ? seed_ - 1 + std::uint64_t(s) : seed_; }

 private:
  std::uint64_t seed_;
  Inputs kind_ = Inputs::oracle;
  bool alternating_ = false;
};

// Every rank's check of a multi-process run, from each process's own (Fabric::drives): counts
// added up, the worst ULP error, the lowest rank's first error; the same on every process.
// Collective. One process: `mine` as it is.
CheckResult gather_check(World& w, const CheckResult& mine);

// What a case's workload holds: per rank on the fabric (inputs, outputs) and once in host memory
// (the oracle or fp64 reference, staging copies for fill and check), for the up-front check that
// a sweep fits in memory.
struct WorkloadFootprint {
  std::size_t per_rank = 0, host = 0;
  std::vector<std::size_t> buffers;  // each per-rank buffer on the fabric (per_rank is their sum)
};
WorkloadFootprint workload_footprint(const Case& c);
WorkloadFootprint rmsnorm_workload_footprint(const Case& c);

// Allocates the case's buffers on `f` (inputs/outputs at `placement`) and fills them. The
// all-reduce check is bit for bit; with `signed_zeros` false (Variant::signed_zeros) a +0.0 and a
// -0.0 count as one value (arbench/core/oracle.hpp, same_element).
std::unique_ptr<Workload> make_workload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed,
                                        double eps, bool signed_zeros = true);

// A lossy variant's workload (bench/workload/workload_lossy.cpp): random inputs, checked against
// the exact sum within the FP8 error bound for `quantizations` quantizations per value.
std::unique_ptr<Workload> make_lossy_workload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed,
                                              int quantizations);

// The fused family's workload (bench/workload/workload_rmsnorm.cpp).
std::unique_ptr<Workload> make_rmsnorm_workload(const Case& c, Fabric& f, Placement placement,
                                                std::uint64_t seed, double eps);

}  // namespace arbench
