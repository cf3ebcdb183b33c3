// `arbench compare RUN.json --between A,B`: two NCCL libraries measured side by side in one run
// (`arbench run --nccl-lib`) compared as two runs would be. A and B each name a library of the run:
// `nccl` (the run's default library) or `nccl@<label>` (one of --nccl-lib); `nccl@<version>` also
// names the default when no library has that label and the default is that version. BASE is A's
// cases, NEW is B's, each under the name it would have for the default library
// (`allreduce/nccl@2.29.2/...` -> `allreduce/nccl/...`), so compare's rule, gate and report apply
// unchanged: exit 1 when B is slower than A (or failed a case A measured). Only the variants both
// libraries measured are compared (a variant only one has, such as `nccl[tuned]` of the default or
// a skipped `nccl-symm@<label>`, is left out: listed in the notes). The two sides' stacks differ
// in their NCCL version and library, so the report is headed by that change ("stack changed: NCCL
// 2.28.9 → 2.29.2: ...").
#pragma once

#include <string>
#include <utility>

#include "results/result_file.hpp"

namespace arbench {

struct BetweenSplit {
  ResultFile base, next;        // A's cases, B's cases, renamed; paths "RUN.json [nccl@2.29.2]"
  std::vector<std::string> left_out;  // variants only one side measured ("nccl[tuned]: only nccl has it")
};

// UsageError (exit 2) naming the run's libraries when A or B is not one of them, when they are
// one library, or when they measured no variant in common.
BetweenSplit split_between(const ResultFile& run, const std::string& a, const std::string& b);

// Empty when `text` can name a library of a run (`nccl`, or `nccl@` and a label); else why not.
std::string library_selector_problem(const std::string& text);

}  // namespace arbench
