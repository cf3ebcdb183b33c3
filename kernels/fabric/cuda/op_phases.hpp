// How a GPU fabric enqueues one op of every rank (fabric.hpp RankOp), host code only so the
// order is tested without a GPU (tests/host/fabric/test_two_phase_launch.cpp):
//   begin_group(); launch(first) .. launch(last); end_group(); after(first) .. after(last)
// over the ranks this process drives (every rank, or its own with one process per GPU).
// On the NCCL fabric begin/end are ncclGroupStart/End, and NCCL enqueues the grouped
// collectives on their streams inside ncclGroupEnd: whatever a rank's after() enqueues follows
// its collective on the stream, whatever launch() enqueued besides the collective precedes it.
#pragma once

#include "arbench/fabric.hpp"

namespace arbench {

// Ranks first .. first + count - 1; stream_of(rank) makes the rank's device current and returns
// its stream.
template <class StreamOf, class Begin, class End>
void enqueue_two_phase(const RankOp& op, int first, int count, StreamOf&& stream_of, Begin&& begin_group,
                       End&& end_group) {
  begin_group();
  for (int r = first; r < first + count; ++r) op.launch(r, stream_of(r));
  end_group();
  if (!op.after) return;
  for (int r = first; r < first + count; ++r) op.after(r, stream_of(r));
}

}  // namespace arbench
