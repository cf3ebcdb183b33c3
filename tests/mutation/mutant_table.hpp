// The mutation score's table: every planted protocol fault (include/arbench/algo/faults.hpp),
// the real-world mistake it stands for, its scenario and the kernels it runs against, with the
// outcome each expects on the ThreadSanitizer twins. Dependency-free: the twin-side score
// (mutants.hpp, main.cpp) and the model check (tests/model/, which links no twin) read the same
// list, so a mutant added here is run by both (the model check fails while it has no model point
// for it).
#pragma once

#include <string>
#include <vector>

#include "arbench/algo/faults.hpp"
#include "tests/host/kernels/twin_kernel.hpp"

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

// "mutant: kernel" for every mutant that targets oneshot-pull or twoshot but not the FP8 kernel
// that runs the same protocol (protocol_kernel): empty when the table is complete.
std::vector<std::string> fp8_targets_missing();

}  // namespace arbench::testing
