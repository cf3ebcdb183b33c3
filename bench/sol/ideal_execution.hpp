// An ideal execution of a schedule's traffic (arbench/traffic.hpp) on the measured links: the
// yardstick the floor (floor.hpp) must never exceed, written apart from it as events in time.
//   - every flow moves at the rate the floor gives it (priced_flow_gbps: its own, under its
//     phase's pattern) and lands one hop of its phase's pattern after its last byte left;
//   - a flow of step k leaves once its source has received every flow of step k-1 into it, and its
//     link is free (one step after another on a link);
//   - a phase's waits beyond one per step are barriers among its ranks, one hop each, before it;
//     every rank finishes a phase before any rank starts the next;
//   - a pipelined schedule's packs stream through its phases: chunk c of a phase leaves a rank once
//     chunk c of the phase before has reached it, each landing max(1, waits) hops later.
// Nothing else costs time: no launch, no reduction, no contention beyond what the rates hold.
// Host-only.
#pragma once

#include <optional>
#include <string>

#include "arbench/traffic.hpp"
#include "sol/floor.hpp"

namespace arbench::sol {

// The time of that execution of `s` on a world of `world` ranks, in microseconds; `chunks`: how many
// pieces a pipelined schedule's flows stream in. nullopt with *why where the floor has no price
// either (a pattern or a rank's GPU not measured).
std::optional<double> ideal_execution_us(const TrafficSchedule& s, int world, const FloorInputs& in, int chunks,
                                         std::string* why);

}  // namespace arbench::sol
