// What the variant adapters (SymmVariant, RingVariant, FusedVariant, IslandVariant) do alike with
// per-rank memory: check the op's buffers, start the state their kernels keep between launches,
// copy images into their scratch, read the error records back, and hand the pointers to the
// kernel's arguments. Only the ranks this process drives are touched (in a multi-process run the
// others' processes do theirs), always through the fabric, so the same code serves device and
// host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arbench/algo/epoch.hpp"
#include "arbench/algo/pack.hpp"
#include "arbench/algo/symm_layout.hpp"
#include "arbench/algo/wait.hpp"
#include "arbench/core/errors.hpp"
#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"

namespace arbench {

// An all-reduce's input and output (the input again when in place).
struct ReduceIo {
  RankBuffers* in = nullptr;
  RankBuffers* out = nullptr;
};

// `b`'s input and output, every rank's 16-byte aligned (the kernels move 16-byte packs), else a
// CaseError naming `variant`.
inline ReduceIo aligned_io(const OpBuffers& b, int world, const std::string& variant) {
  const ReduceIo io{b.in, b.out != nullptr ? b.out : b.in};
  for (int r = 0; r < world; ++r)
    if (!algo::is_pack_aligned(io.in->local(r)) || !algo::is_pack_aligned(io.out->local(r)))
      throw CaseError(variant + ": rank " + std::to_string(r) +
                      "'s input or output is not 16-byte aligned; allocate it with Fabric::alloc");
  return io;
}

// Copies `bytes` from `src` to the start of `buf` on every rank this process drives.
inline void upload_driven(Fabric& f, const RankBuffers& buf, const void* src, std::size_t bytes) {
  for (int r = 0; r < f.world(); ++r)
    if (f.drives(r)) f.upload(r, buf.local(r), src, bytes);
}

// A State (algo::RankState, algo::RingState) in every rank's own memory, each of its `counters`
// "just before" `start` (algo::flag_fill; zero-filled memory already is, for the production
// start); the variant starts its flags with the same fill word.
template <class State, std::size_t N>
std::unique_ptr<RankBuffers> start_state(Fabric& f, std::uint32_t start, std::uint32_t (State::*counters)[N]) {
  std::unique_ptr<RankBuffers> buf = f.alloc(sizeof(State), Placement::local);
  State st{};
  for (auto& c : st.*counters) c = algo::flag_fill(start);
  upload_driven(f, *buf, &st, sizeof st);
  return buf;
}

// Throws the first recorded timeout in `state` (an algo::RankState per rank; lowest rank first),
// naming rank, block, peer and flag.
inline void throw_first_timeout(Fabric& f, const RankBuffers& state, const char* variant, double timeout_s) {
  for (int r = 0; r < f.world(); ++r) {
    if (!f.drives(r)) continue;  // its own process checks it
    algo::RankState st{};
    f.download(r, &st, state.local(r), sizeof st);
    if (st.error.claimed != 0u) throw CaseError(algo::describe_timeout(st.error, variant, timeout_s));
  }
}

// Of every rank's error record (`recs`, by rank; a rank another process drives holds zeros), the one
// that names the root cause: one lost rank stalls ranks that wait for ranks that wait for it, so a
// wait for a peer that itself recorded nothing (the rank really missing), else the lowest rank's;
// nullptr when no record was claimed. (ring checks its overwrites before this.)
inline const algo::ErrorRecord* root_cause_record(const std::vector<algo::ErrorRecord>& recs) {
  const algo::ErrorRecord* first = nullptr;
  for (const auto& e : recs)
    if (e.claimed != 0u && first == nullptr) first = &e;
  for (const auto& e : recs)
    if (e.claimed != 0u && e.peer >= 0 && e.peer < static_cast<int>(recs.size()) &&
        recs[static_cast<std::size_t>(e.peer)].claimed == 0u)
      return &e;
  return first;
}

// The kernel arguments' wait bound, and `rank`'s phase record (nullptr: not recording).
inline std::uint64_t timeout_ns(double timeout_s) { return static_cast<std::uint64_t>(timeout_s * 1e9); }
inline std::uint64_t* phase_record(const RankBuffers* rec, int rank) {
  return rec != nullptr ? static_cast<std::uint64_t*>(rec->local(rank)) : nullptr;
}

}  // namespace arbench
