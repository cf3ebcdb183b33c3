// Workload: the buffers of one case, their oracle inputs and the check of the results.
// One per family: allreduce (exact, bitwise against the oracle sum) and allreduce_rmsnorm
// (against an fp64 host reference with a tolerance). Host-only: it talks to the Fabric
// interface, so it is tested on the host fabric.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

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
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual const OpBuffers& buffers() const = 0;
  // (Re)write the inputs with the oracle values and poison the outputs (NaN bytes), so an
  // element no rank wrote is caught.
  virtual void fill(Fabric& f) = 0;
  // Read every rank's outputs back and compare (all ranks must also agree bitwise).
  virtual CheckResult check(Fabric& f) = 0;
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
};
WorkloadFootprint workload_footprint(const Case& c);
WorkloadFootprint rmsnorm_workload_footprint(const Case& c);

// Allocates the case's buffers on `f` (inputs/outputs at `placement`) and fills them.
std::unique_ptr<Workload> make_workload(const Case& c, Fabric& f, Placement placement, std::uint64_t seed,
                                        double eps);

// The fused family's workload (bench/workload/workload_rmsnorm.cpp).
std::unique_ptr<Workload> make_rmsnorm_workload(const Case& c, Fabric& f, Placement placement,
                                                std::uint64_t seed, double eps);

}  // namespace arbench
