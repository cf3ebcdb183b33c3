// Sweep: expands a resolved RunConfig into Cases (variant × dtype × world × shape), in a stable
// order, validating every value. Cases whose variant cannot run on the backend are returned
// separately with the reason (`list` shows them, the run's footer counts them).
#pragma once

#include <string>
#include <vector>

#include "sweep/run_config.hpp"

namespace arbench {

struct SkippedCase {
  Case c;
  std::string reason;
};

struct Sweep {
  std::vector<Case> cases;
  std::vector<SkippedCase> skipped;
};

// Message sizes min, min*f, min*f^2, ... <= max, each rounded down to a multiple of elem_size.
std::vector<std::size_t> size_series(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                     std::size_t elem_size);

// Variant names of `family` matching any of `patterns` (glob: * ? [..]); all when empty.
// Throws UsageError naming a pattern that matches no variant at all.
std::vector<std::string> select_variants(const Registry& reg, const std::vector<std::string>& patterns,
                                         Family family);

// Keeps the cases (and skipped cases) whose name matches `filter` the way --benchmark_filter
// selects benchmarks: a POSIX extended regex searched in the name; a leading '-' keeps the
// names that do NOT match; empty keeps everything. Returns how many cases it dropped. Throws
// UsageError for a regex that does not compile and when nothing is left.
std::size_t filter_sweep(Sweep& sweep, const std::string& filter);

// Throws UsageError for bad input (min > max, factor <= 1, sizes not a multiple of the
// element size, empty sweep, ...).
Sweep expand_sweep(const RunConfig& cfg, const Registry& reg, Backend backend);

}  // namespace arbench
