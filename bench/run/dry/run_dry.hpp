// `arbench run --dry-run --links FILE`: every case of the sweep priced on a saved links file's
// rates (the "patterns" object `arbench topo --out` writes, or a published box's under
// results/reference/), printed one a line, without a GPU and without running anything
// (docs/speed-of-light.md, "Pricing without running").
#pragma once

#include <iosfwd>

#include "arbench/variant.hpp"
#include "sweep/run_config.hpp"

namespace arbench {

// Why `cfg` cannot be priced dry ("" when it can): no --links, a file without patterns, --no-sol,
// --out or --csv (a dry run writes no results), a backend other than cuda.
std::string dry_run_problem(const RunConfig& cfg);

// Prints the floor (or why there is none) of every case the cuda backend would run with `cfg`, at
// GPUs 0..N-1 of the file's positions, the round trips of `arch`'s table (120: the target's);
// throws UsageError on a bad option. Returns the exit code (0).
int run_dry(RunConfig cfg, std::ostream& out, const Registry& reg = Registry::builtin(), int arch = 120);

}  // namespace arbench
