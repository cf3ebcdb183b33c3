// Workload of the allreduce_rmsnorm family. Placeholder until the fused family lands:
// no variant of that family is registered yet, so this is never reached by a sweep.
#include "arbench/core/errors.hpp"
#include "core/workload.hpp"

namespace arbench {

std::unique_ptr<Workload> make_rmsnorm_workload(const Case& c, Fabric&, Placement, std::uint64_t, double) {
  throw UsageError("case " + c.name() + ": the allreduce_rmsnorm family has no workload in this build");
}

}  // namespace arbench
