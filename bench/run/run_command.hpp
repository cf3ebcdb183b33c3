// `arbench run` and `arbench list`: resolve the backend, expand the sweep, plan, and run every
// case as a Google Benchmark; then print the footer and write the JSON / CSV.
#pragma once

#include "arbench/variant.hpp"
#include "arbench/world.hpp"
#include "sweep/run_config.hpp"

namespace arbench {

// Returns the exit code (0 ok, 1 a case failed); throws arbench::Error for usage/environment.
// In a World of several processes (mpirun) every process runs every case as one rank; world
// rank 0 alone prints and writes, and errors are agreed (AgreedError) so every process exits
// with the same code. `registry`: the variants to sweep; tests pass their own (e.g. a variant
// of known cost).
int run_sweep(RunConfig cfg, bool list_only, World& world, const Registry& registry = Registry::builtin());

}  // namespace arbench
