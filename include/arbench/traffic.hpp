// Traffic: what a variant's schedule moves between ranks, as data (docs/method.md, "The floor of a
// case"). Every variant's registry entry carries a function that gives its traffic for one case:
// which rank's data reaches which rank, how many bytes on the wire, in which phase, and what runs
// at the same time. The speed-of-light floor of a case (bench/sol/) prices each phase with the
// rates the pattern probe measured under that phase's own concurrency on this box.
//
// A flow is data of rank `from` landing at rank `to`. Push: `from` stores into `to`'s memory
// (posted writes); pull: `to` loads from `from`'s memory (reads). Every flow of a phase runs at
// once; a phase's flows repeat `steps` times one after another (a ring's steps); phases run one
// after another, unless the schedule is pipelined (its phases overlap pack by pack: every pack
// goes through every phase, and the packs stream). Bytes are wire bytes: LL lines carry 8 data
// bytes per 16 (twice the data), FP8 its codes and scales.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/case.hpp"

namespace arbench {

// The shapes the pattern probe measures (bench/sol/probe_plan.hpp): every phase is one of them.
enum class TrafficShape : std::uint8_t {
  all_pairs,      // every rank with every other rank (one-shot; each half of two-shot)
  ring,           // every rank with the next in a cycle of all ranks
  chain,          // neighbours along a path of all ranks, both ways (NCCL's tree within one node)
  island_inside,  // every rank with every other rank of its island
  island_across,  // ranks with partners in the other islands
};
enum class TrafficDirection : std::uint8_t { push, pull };

const char* traffic_shape_name(TrafficShape s);          // "all-pairs", "ring", ...
const char* traffic_direction_name(TrafficDirection d);  // "push", "pull"

struct TrafficFlow {
  int from = 0, to = 0;
  double bytes = 0;  // per step
};

struct TrafficPhase {
  std::string what;  // "reduce-scatter: every rank loads its shard from every peer"
  TrafficShape shape = TrafficShape::all_pairs;
  TrafficDirection direction = TrafficDirection::pull;
  int steps = 1;
  std::vector<TrafficFlow> flows;
  // The waits of the schedule's count (TrafficSchedule::round_trips) this phase pays, each priced
  // at the hop of this phase's own links; a one-phase schedule's phase pays them all whatever this
  // says (phase_waits).
  int waits = 0;
};

struct TrafficSchedule {
  std::string name;  // "one-shot pull", "NCCL ring (Simple)"
  std::vector<TrafficPhase> phases;
  // Waits per op the schedule itself needs (a flag or a wave of data that must arrive before the
  // next step), when every thread has one unit of work: the latency term's count where no count of
  // the kernel's compiled code is known (NCCL, the host twins).
  int round_trips = 0;
  // Wire bytes per byte of the message (LL: 2; FP8: its codes and scales over the data's bytes).
  double wire_ratio = 1;
  // The phases overlap pack by pack (FlashInfer's 8-rank unstaged kernel: each pack pushed three
  // times in a row, no barrier): no phase waits for the whole of the one before it.
  bool pipelined = false;
  // Where round_trips comes from when it is not arbench's count of its own kernel (the peers': what
  // their code was read to do); the floor says it. Empty: the schedule's own count.
  std::string waits_source = {};
};

// The waits each phase of `s` pays: a one-phase schedule's phase all of s.round_trips; else each
// phase's own count (traffic_problem checks they add up to s.round_trips).
std::vector<int> phase_waits(const TrafficSchedule& s);

// A variant's traffic for one case: one schedule, or several where the variant picks among them at
// run time in a way arbench does not see (NCCL's algorithm and protocol when NCCL chooses); the
// floor is then the lowest of their floors. Empty schedules: no traffic, and `why_none` says why.
struct Traffic {
  std::vector<TrafficSchedule> schedules;
  std::string why_none;
  // No schedule because the variant does not run this case at all (ce-island on islands of
  // different sizes: its Support says no too), as opposed to a pattern missing for a case it runs.
  bool declined = false;
  // The islands the kernel itself follows when it fixes them whatever the case's are (FlashInfer's
  // PCIe-IPC kernels at 8 ranks: ranks 0-3 and 4-7), by rank; empty: the case's (TrafficQuery).
  std::vector<int> island_of = {};
};

struct TrafficQuery;
// q, with t's own islands where t fixes them: the query its schedules are checked against.
TrafficQuery query_of(const Traffic& t, const TrafficQuery& q);

struct TrafficQuery {
  Case c;                      // c.bytes: the message (fused: tokens x hidden x dtype)
  std::string config;          // the variant's configuration, "ring/ll" of nccl[ring/ll]; "" for none
  std::vector<int> island_of;  // by rank (the island variants); empty when not known
  std::vector<int> ring_order;  // the ranks in ring order; empty: 0, 1, ..., N-1
  std::vector<std::pair<std::string, std::string>> settings;  // the case's recorded settings (NCCL_ALGO, ...)
  const std::string* setting(const std::string& key) const;
};

using TrafficFn = Traffic (*)(const TrafficQuery&);

// Builders of the phases every schedule is written from (kernels/core/traffic.cpp).
// Every rank with every other rank: `bytes` per flow.
TrafficPhase all_pairs_phase(std::string what, TrafficDirection d, int world, double bytes);
// order[k] -> order[k+1] and the last back to the first, `steps` times `bytes`.
TrafficPhase ring_phase(std::string what, TrafficDirection d, const std::vector<int>& order, int steps, double bytes);
// order[k] <-> order[k+1] both ways, `steps` times `bytes` per flow.
TrafficPhase chain_phase(std::string what, TrafficDirection d, const std::vector<int>& order, int steps, double bytes);
// Every rank with every other rank of its island (island_of: a label per rank); `bytes` per flow.
TrafficPhase island_inside_phase(std::string what, TrafficDirection d, const std::vector<int>& island_of, double bytes);
// The given flows between islands.
TrafficPhase island_across_phase(std::string what, TrafficDirection d, std::vector<TrafficFlow> flows);
// 0, 1, ..., world-1 unless `order` names every rank of the world once.
std::vector<int> ring_or_identity(const std::vector<int>& order, int world);

// Why `s` is not an all-reduce schedule of q's case, "" when it is: a flow outside the world, to
// itself or without bytes; a phase whose flows are not its shape's (a one-shot rank reading fewer
// than N-1 peers, a ring that is not one cycle of every rank, island flows that stay in or leave
// an island); a rank whose output never hears from some rank; a rank that receives less than the
// message (no rank can compute a sum of every rank's data from less).
std::string traffic_problem(const TrafficSchedule& s, const TrafficQuery& q);

}  // namespace arbench
