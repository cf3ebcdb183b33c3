// Recording the phase timeline from protocol code (arbench/core/phases.hpp has the record's
// layout). `rec` is the rank's record, or nullptr when nothing is recorded: then a mark is one
// predictable branch and the timed ops pay nothing else. Thread 0 of each block writes its own
// row, so marks need no synchronisation; the host reads them after the op finished.
#pragma once

#include <cstdint>

#include "arbench/algo/mem_policy.hpp"
#include "arbench/core/phases.hpp"

namespace arbench::algo {

template <class Mem>
ARB_HD void phase_mark(std::uint64_t* rec, const BlockCtx& c, int mark) {
  if (rec != nullptr && c.thread == 0)
    rec[static_cast<std::size_t>(c.block) * kMaxPhaseMarks + static_cast<std::size_t>(mark)] = Mem::now_ns();
}

// Where block_barrier records its three marks (staged, arrived, peers), or none.
struct BarrierMarks {
  std::uint64_t* rec = nullptr;
  int first = 0;
};

}  // namespace arbench::algo
