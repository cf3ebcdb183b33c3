// The mutation score's twin side (the table itself: mutant_table.hpp). Every mutant runs in a
// child process of its own (a TSan report or a timeout ends that process, not the suite) on the
// block-faithful twins under ThreadSanitizer.
#pragma once

#include <string>
#include <vector>

#include "tests/host/kernels/twin_points.hpp"
#include "tests/mutation/mutant_table.hpp"

namespace arbench::testing {

inline constexpr int kExitWrong = 10;
inline constexpr int kExitTimeout = 11;
inline constexpr int kExitNoFailure = 12;
inline constexpr int kExitProtocolError = 13;  // an error the protocol recorded that is no timeout
inline constexpr int kExitTsan = 66;

// The scenario's point: 4 ranks, 4 threads per block, 2 blocks, bf16, tails, 3 ops.
TwinPoint mutation_point(Scenario s);
// The fabric's wait bound: long enough for honest waits under TSan, short enough for a timeout
// kill to come quickly.
double mutation_timeout_s(Scenario s);

// In the child: runs scenario s of kernel k with fault f planted; returns the exit code.
int run_mutant(algo::Fault f, TwinKernel k, Scenario s);

}  // namespace arbench::testing
