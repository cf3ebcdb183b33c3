// The mutation score: planted protocol faults, the kernels each runs against, and the outcome
// each expects. Every mutant runs in a child process of its own (a TSan report or a timeout
// ends that process, not the suite) on the block-faithful twins under ThreadSanitizer.
#pragma once

#include <string>
#include <vector>

#include "arbench/algo/faults.hpp"
#include "tests/host/kernels/twin_points.hpp"

namespace arbench::testing {

// How a child ended. Its exit code says it: 0, 10, 11, 12, 13, 66 (TSan's, set by the driver).
enum class Kill { survived, tsan, wrong, timeout, protocol_error, no_failure, crash, hang };

inline const char* kill_name(Kill k) {
  switch (k) {
    case Kill::survived: return "survived";
    case Kill::tsan: return "TSan report";
    case Kill::wrong: return "wrong result";
    case Kill::timeout: return "bounded-wait timeout";
    case Kill::protocol_error: return "protocol check";
    case Kill::no_failure: return "scenario did not fail";
    case Kill::crash: return "crash";
    case Kill::hang: return "hang (killed)";
  }
  return "?";
}

inline constexpr int kExitWrong = 10;
inline constexpr int kExitTimeout = 11;
inline constexpr int kExitNoFailure = 12;
inline constexpr int kExitProtocolError = 13;  // an error the protocol recorded that is no timeout
inline constexpr int kExitTsan = 66;

// ops: a few ops against the oracle. missing_rank: one op with rank 1 absent; a correct
// protocol records the timeout and no rank writes output (run_missing_rank).
enum class Scenario { ops, missing_rank };

struct Target {
  TwinKernel kernel;
  Kill expect;
  Kill also = Kill::survived;  // a second accepted outcome, where which one comes first depends on timing
  bool accepts(Kill k) const { return k == expect || (also != Kill::survived && k == also); }
};

struct Mutant {
  const char* name;
  algo::Fault fault;
  const char* models;  // the real-world mistake the fault stands for
  Scenario scenario;
  std::vector<Target> targets;
};

// Every mutant of the score, in the order they are reported.
const std::vector<Mutant>& mutants();

// The scenario's point: 4 ranks, 4 threads per block, 2 blocks, bf16, tails, 3 ops.
TwinPoint mutation_point(Scenario s);
// The fabric's wait bound: long enough for honest waits under TSan, short enough for a timeout
// kill to come quickly.
double mutation_timeout_s(Scenario s);

// In the child: runs scenario s of kernel k with fault f planted; returns the exit code.
int run_mutant(algo::Fault f, TwinKernel k, Scenario s);

}  // namespace arbench::testing
