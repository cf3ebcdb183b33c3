// How a GPU fabric enqueues one op of every rank (fabric.hpp RankOp), host code only so the
// order is tested without a GPU (tests/host/fabric/test_two_phase_launch.cpp):
//   begin_group(); launch(first) .. launch(last); end_group(); after(first) .. after(last)
// over the ranks this process drives (every rank, or its own with one process per GPU).
// On the NCCL fabric begin/end are ncclGroupStart/End, and NCCL enqueues the grouped
// collectives on their streams inside ncclGroupEnd: whatever a rank's after() enqueues follows
// its collective on the stream, whatever launch() enqueued besides the collective precedes it.
//
// The group is closed on every path. ncclGroupStart/End are not RAII: a launch that throws
// between them would leave the group open (NCCL counts the depth per thread), and every later
// NCCL call of the thread would go into that group and "finish" at once without running.
// A launch that throws therefore calls abandon_group (NCCL: mark the group failed, so none of
// the calls that went in run on a partial set of ranks, then end it) before the error goes on.
#pragma once

#include <exception>

#include "arbench/fabric.hpp"

namespace arbench {

// Ranks first .. first + count - 1; stream_of(rank) makes the rank's device current and returns
// its stream. `abandon_group` ends a group whose launches failed (its own errors are ignored:
// the launch's error is the one that matters).
template <class StreamOf, class Begin, class End, class Abandon>
void enqueue_two_phase(const RankOp& op, int first, int count, StreamOf&& stream_of, Begin&& begin_group,
                       End&& end_group, Abandon&& abandon_group) {
  begin_group();
  try {
    for (int r = first; r < first + count; ++r) op.launch(r, stream_of(r));
  } catch (...) {
    try {
      abandon_group();
    } catch (...) {  // the launch's error goes on, not the clean-up's
    }
    throw;
  }
  end_group();
  if (!op.after) return;
  for (int r = first; r < first + count; ++r) op.after(r, stream_of(r));
}

// The same where ending the group is all a failed launch needs (no NCCL calls in it).
template <class StreamOf, class Begin, class End>
void enqueue_two_phase(const RankOp& op, int first, int count, StreamOf&& stream_of, Begin&& begin_group,
                       End&& end_group) {
  enqueue_two_phase(op, first, count, stream_of, begin_group, end_group, end_group);
}

}  // namespace arbench
