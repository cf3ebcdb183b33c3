// `arbench run` and `arbench list`: resolve the backend, expand the sweep, plan, and run every
// case as a Google Benchmark; then print the footer and write the JSON / CSV.
#pragma once

#include "arbench/variant.hpp"
#include "run/run_config.hpp"

namespace arbench {

// Returns the exit code (0 ok, 1 a case failed); throws arbench::Error for usage/environment.
// `registry`: the variants to sweep; tests pass their own (e.g. a variant of known cost).
int run_sweep(RunConfig cfg, bool list_only, const Registry& registry = Registry::builtin());

}  // namespace arbench
