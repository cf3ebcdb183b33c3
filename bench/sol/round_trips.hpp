// The latency term's count: how many times one op of a kernel waits on PCIe (a flag, or a wave of
// remote loads that must arrive before it goes on). The floor multiplies it by one hop's latency
// (floor.hpp). Where arbench counted a kernel's waits from its compiled code (the round-trip table,
// docs/round-trips.md), that count is the kernel's; elsewhere (NCCL, the peers, the host twins, a
// build without the table) the floor takes the schedule's own count (TrafficSchedule::round_trips)
// and says so.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "arbench/core/dtype.hpp"

namespace arbench::sol {

struct RoundTrips {
  double per_op = 0;
  std::string source;  // "round-trip table: oneshot_pull, sm_120", ...
};

// Round trips per op of `variant` (a registry name, configurations included) at `world` ranks, for
// `dtype` on a GPU of compute capability `arch` (120, 90; 0: the host backend).
using RoundTripLookup = std::function<std::optional<RoundTrips>(const std::string& variant, int world, DType dtype, int arch)>;

// The built-in lookup, the one place the latency term's count comes from: the round-trip table's
// count (arbench/core/round_trips.hpp, one_unit_round_trips: every thread one unit of each work
// loop, a latency-bound op) of the kernel whose entry names the variant, for its dtype and
// architecture; nullopt where there is none (NCCL, the peers, the host backend's arch 0, a build
// without the table).
std::optional<RoundTrips> kernel_round_trips(const std::string& variant, int world, DType dtype, int arch);

}  // namespace arbench::sol
