// The PCIe round trips of every protocol kernel, counted from the PTX the build compiled for each
// architecture by scripts/round_trips.py (docs/round-trips.md: what counts, and the bounds): the
// lookups over the generated table (round_trips_table.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "arbench/core/round_trip_entry.hpp"
#include "arbench/core/round_trips_table.hpp"

namespace arbench {

// Whether the comma-separated list `list` ("oneshot-pull,unfused-oneshot") names `name` exactly.
constexpr bool listed_in(std::string_view list, std::string_view name) {
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    if (list.substr(at, comma - at) == name) return true;
    at = comma + 1;
  }
  return false;
}

// Whether row k holds the counts of `dtype` ("bf16") on compute capability `sm` (120).
constexpr bool holds(const KernelRoundTrips& k, std::string_view dtype, int sm) {
  return sm != 0 && std::ranges::count(k.sms, sm) > 0 && listed_in(k.dtypes, dtype);
}

// The entry of kernel (its source's name: "oneshot_pull"), dtype ("bf16") and sm (120), or nullptr.
constexpr const KernelRoundTrips* find_round_trips(std::string_view kernel, std::string_view dtype, int sm) {
  for (const KernelRoundTrips& k : kKernelRoundTrips)
    if (k.kernel == kernel && holds(k, dtype, sm)) return &k;
  return nullptr;
}

// Round trips of one op when every thread has at most one unit (row) of each work loop: the
// flag waits, plus each loop's waits times its copies and its trips (a step loop runs 2(N-1)
// steps per round, a peer loop N-1 peers; units, rows and rounds once), times the trips of the
// loops around it. The floor of a latency-bound op is this times the link's round-trip latency.
constexpr int one_unit_round_trips(const KernelRoundTrips& k, int world) {
  auto trips = [world](std::string_view per) { return per == "step" ? 2 * (world - 1) : per == "peer" ? world - 1 : 1; };
  int total = k.flag_waits + k.data_waits;
  for (int i = 0; i < k.loop_count; ++i) {
    int n = (k.loops[i].flag_waits + k.loops[i].data_waits) * k.loops[i].copies;
    for (int o = i; o >= 0; o = k.loops[o].inside) n *= trips(k.loops[o].per);
    total += n;
  }
  return total;
}

// The stream waits of one op of `variant` (a registry name without configuration) at `world` ranks.
constexpr int stream_round_trips(std::string_view variant, int world) {
  for (const StreamRoundTrips& s : kStreamRoundTrips)
    if (s.variant == variant) return s.waits * (s.per == "step" ? 2 * (world - 1) : 1);
  return 0;
}

}  // namespace arbench
