// ce-twoshot's program for one rank (ce_program.hpp: the op kinds and the flag rules).
//
// Rank r owns segment r (owned_range: 1/N of the packs), cut into chunks. Gather: every peer p
// copies chunk j of its segment-r input into r's staging slot [p][j % slots] and counts it in
// r's flag D[p]; r's reduce stream waits for chunk j from every peer, reduces it with its own
// input in rank order 0..N-1 into its output, and credits every peer (C[r] at the peer: the slot
// is free). Scatter: r's copy streams copy the reduced chunk into every peer's output and count
// it in the peer's G[r]. A rank's outbound copies are spread over its copy streams, peer k
// (k = 1..N-1 after r in rank order, so at one moment rank r sends to r+k and receives from r-k:
// one inbound and one outbound copy per stream, the posted-write lesson) on stream 1 + (k-1) % S.
// The op ends on stream 0 when every peer's segment is in r's output.
// Flag words: D[p] = p, C[q] = N + q, G[p] = 2N + p.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "arbench/algo/ce/ce_program.hpp"

namespace arbench::algo {

inline int ce_twoshot_data_flag(int /*world*/, int from) { return from; }
inline int ce_twoshot_credit_flag(int world, int from) { return world + from; }
inline int ce_twoshot_gather_flag(int world, int from) { return 2 * world + from; }

// Rank `receiver`'s staging slot for chunk j of sender `from`.
inline std::size_t ce_twoshot_slot_offset(const CeGeometry& g, int from, std::size_t j) {
  return (static_cast<std::size_t>(from) * static_cast<std::size_t>(g.slots) + j % static_cast<std::size_t>(g.slots)) *
         ce_slot_bytes(g);
}
inline std::size_t ce_twoshot_staging_bytes(const CeGeometry& g) {
  return static_cast<std::size_t>(g.world) * static_cast<std::size_t>(g.slots) * ce_slot_bytes(g);
}

// The chunks of every rank's segment, and the copy stream that serves peer distance k.
inline std::size_t ce_twoshot_chunks(const CeGeometry& g, int owner) {
  return ce_chunks(g, owned_range(g.packs, g.world, owner));
}
inline int ce_twoshot_stream_of(const CeGeometry& g, int k) { return 1 + (k - 1) % g.copy_streams; }

// A rank that has no peer copies its input to its output (world 1), chunk by chunk.
inline CeProgram ce_local_program(const CeGeometry& g, int r) {
  CeProgram p;
  p.streams.assign(1, {});
  const Range seg{0, g.packs};
  for (std::size_t j = 0; j < ce_chunks(g, seg); ++j) {
    const Range c = ce_chunk(g, seg, j);
    CeOp o;
    o.kind = CeOpKind::reduce;
    o.dst = CeLoc{CeBuf::out, r, ce_byte_of(g, c.begin)};
    o.bytes = ce_bytes_of(g, c);
    o.srcs[0] = CeLoc{CeBuf::in, r, o.dst.offset};
    o.nsrc = 1;
    p.streams[0].push_back(o);
  }
  return p;
}

inline CeProgram ce_twoshot_program(const CeGeometry& g, int r) {
  const int n = g.world;
  if (n == 1) return ce_local_program(g, r);
  CeProgram p;
  const int streams = std::min(g.copy_streams, n - 1);
  CeGeometry gs = g;
  gs.copy_streams = streams;
  ce_fork(p, streams);
  const std::size_t own = ce_twoshot_chunks(g, r);
  const Range own_seg = owned_range(g.packs, n, r);
  const int red_event0 = p.events;  // the reduce of chunk j records event red_event0 + j
  p.events += static_cast<int>(own);

  // Copy streams: gather chunk j to every peer of the stream, then scatter reduced chunk j - 1.
  std::size_t most = own;
  for (int q = 0; q < n; ++q) most = std::max(most, ce_twoshot_chunks(g, q));
  for (int s = 1; s <= streams; ++s) {
    auto& ops = p.streams[static_cast<std::size_t>(s)];
    std::vector<int> peers;
    for (int k = 1; k < n; ++k)
      if (ce_twoshot_stream_of(gs, k) == s) peers.push_back((r + k) % n);
    auto scatter = [&](std::size_t j) {
      if (j >= own) return;
      ops.push_back(ce_event_op(CeOpKind::await, red_event0 + static_cast<int>(j)));
      const Range c = ce_chunk(g, own_seg, j);
      for (int q : peers) {
        const CeLoc at{CeBuf::out, q, ce_byte_of(g, c.begin)};
        ops.push_back(ce_copy(at, CeLoc{CeBuf::out, r, at.offset}, ce_bytes_of(g, c)));
        ops.push_back(ce_flag_op(CeOpKind::signal, q, ce_twoshot_gather_flag(n, r), static_cast<std::uint32_t>(j + 1)));
      }
    };
    for (std::size_t j = 0; j <= most; ++j) {
      for (int q : peers) {
        if (j >= ce_twoshot_chunks(g, q)) continue;
        if (j >= static_cast<std::size_t>(g.slots))
          ops.push_back(ce_wait(r, ce_twoshot_credit_flag(n, q),
                                static_cast<std::uint32_t>(j - static_cast<std::size_t>(g.slots) + 1), q));
        const Range c = ce_chunk(g, owned_range(g.packs, n, q), j);
        ops.push_back(ce_copy(CeLoc{CeBuf::staging, q, ce_twoshot_slot_offset(g, r, j)},
                              CeLoc{CeBuf::in, r, ce_byte_of(g, c.begin)}, ce_bytes_of(g, c)));
        ops.push_back(ce_flag_op(CeOpKind::signal, q, ce_twoshot_data_flag(n, r), static_cast<std::uint32_t>(j + 1)));
      }
      if (j >= 1) scatter(j - 1);
    }
    // Every slot this rank filled at its peers is consumed: their credits may be reset.
    for (int q : peers) {
      const std::size_t kq = ce_twoshot_chunks(g, q);
      if (kq == 0) continue;
      ops.push_back(ce_wait(r, ce_twoshot_credit_flag(n, q), static_cast<std::uint32_t>(kq), q));
      ops.push_back(ce_flag_op(CeOpKind::reset, r, ce_twoshot_credit_flag(n, q), 0));
    }
  }

  // Stream 0: reduce chunk j once every peer's copy is in, then credit the peers.
  auto& red = p.streams[0];
  for (std::size_t j = 0; j < own; ++j) {
    for (int q = 0; q < n; ++q)
      if (q != r) red.push_back(ce_wait(r, ce_twoshot_data_flag(n, q), static_cast<std::uint32_t>(j + 1), q));
    const Range c = ce_chunk(g, own_seg, j);
    CeOp o;
    o.kind = CeOpKind::reduce;
    o.dst = CeLoc{CeBuf::out, r, ce_byte_of(g, c.begin)};
    o.bytes = ce_bytes_of(g, c);
    for (int q = 0; q < n; ++q)
      o.srcs[q] = q == r ? CeLoc{CeBuf::in, r, o.dst.offset} : CeLoc{CeBuf::staging, r, ce_twoshot_slot_offset(g, q, j)};
    o.nsrc = n;
    red.push_back(o);
    if (j + 1 == own)  // the last count of every D: reset before the last credit lets a peer start its next op
      for (int q = 0; q < n; ++q)
        if (q != r) red.push_back(ce_flag_op(CeOpKind::reset, r, ce_twoshot_data_flag(n, q), 0));
    for (int q = 0; q < n; ++q)
      if (q != r) red.push_back(ce_flag_op(CeOpKind::signal, q, ce_twoshot_credit_flag(n, r), static_cast<std::uint32_t>(j + 1)));
    red.push_back(ce_event_op(CeOpKind::record, red_event0 + static_cast<int>(j)));
  }
  ce_join(p);
  // Every peer's segment is in this rank's output.
  for (int q = 0; q < n; ++q) {
    const std::size_t kq = ce_twoshot_chunks(g, q);
    if (q == r || kq == 0) continue;
    red.push_back(ce_wait(r, ce_twoshot_gather_flag(n, q), static_cast<std::uint32_t>(kq), q));
    red.push_back(ce_flag_op(CeOpKind::reset, r, ce_twoshot_gather_flag(n, q), 0));
  }
  return p;
}

}  // namespace arbench::algo
