// ce-ring's program for one rank (ce_program.hpp: the op kinds and the flag rules).
//
// The message is cut into N segments by ring position (segment x: owned_range(packs, N, x)),
// each into chunks. Reduce-scatter, N-1 steps: at step k the rank at position i copies segment
// i-k (its input at step 0, else the partial sum it reduced at step k-1) into the next rank's
// staging slot; the next rank's reduce stream adds its own input to it (partial first, then
// own: one fixed order per segment, so every rank gets the owner's bits) into its output. After
// step N-2 position i holds segment i+1 complete. All-gather, N-1 steps: each rank copies the
// complete segment, then the one it just received, into the next rank's output, no reduce.
// Transfer u of a link (its reduce-scatter transfers in (step, chunk) order, then, counted
// apart, its all-gather ones) runs on copy stream 1 + u % S and is counted in the receiver's
// flag of that stream (D[s] for reduce-scatter, G[s] for all-gather), so each flag's writer is
// one stream and its counts arrive in order. The receiver credits the sender once a staging
// slot is reduced (C, one counter: the reduces run in order on stream 0).
// Flag words: D[s] = s, G[s] = kCeMaxStreams + s, C = 2 kCeMaxStreams.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "arbench/algo/ce/ce_program.hpp"
#include "arbench/algo/ce/ce_twoshot.hpp"
#include "arbench/algo/ring/ring_order.hpp"

namespace arbench::algo {

inline int ce_ring_data_flag(int stream_index) { return stream_index; }
inline int ce_ring_gather_flag(int stream_index) { return kCeMaxStreams + stream_index; }
inline constexpr int kCeRingCreditFlag = 2 * kCeMaxStreams;

inline std::size_t ce_ring_staging_bytes(const CeGeometry& g) { return static_cast<std::size_t>(g.slots) * ce_slot_bytes(g); }

// One transfer of a link: the segment it carries and its chunk.
struct CeRingTransfer {
  int segment = 0;
  std::size_t chunk = 0;
};

// The transfers position `pos` sends in one phase, in order: reduce-scatter (gather = false)
// sends segment pos-k at step k, all-gather segment pos+1-k.
inline std::vector<CeRingTransfer> ce_ring_sends(const CeGeometry& g, int pos, bool gather) {
  const int n = g.world;
  std::vector<CeRingTransfer> t;
  for (int k = 0; k + 1 < n; ++k) {
    const int seg = ((gather ? pos + 1 - k : pos - k) % n + n) % n;
    const std::size_t chunks = ce_chunks(g, owned_range(g.packs, n, seg));
    for (std::size_t j = 0; j < chunks; ++j) t.push_back({seg, j});
  }
  return t;
}

// Where each segment's first transfer is in a transfer list (a segment's chunks are consecutive),
// so (segment, chunk) -> index is a lookup; the list's size for a segment the list does not carry.
struct CeRingIndex {
  std::vector<std::size_t> first;
  std::size_t size = 0;
  CeRingIndex(const std::vector<CeRingTransfer>& t, int world) : first(static_cast<std::size_t>(world), t.size()), size(t.size()) {
    for (std::size_t u = t.size(); u-- > 0;) first[static_cast<std::size_t>(t[u].segment)] = u;
  }
  std::size_t operator()(int seg, std::size_t chunk) const {
    const std::size_t f = first[static_cast<std::size_t>(seg)];
    return f == size ? size : f + chunk;
  }
};

inline CeProgram ce_ring_program(const CeGeometry& g, const std::vector<int>& order, int r) {
  const int n = g.world;
  if (n == 1) return ce_local_program(g, r);
  const RingNeighbours nb = ring_neighbours(order, r);
  const int streams = g.copy_streams;
  const auto S = static_cast<std::size_t>(streams);
  const auto slots = static_cast<std::size_t>(g.slots);
  CeProgram p;
  ce_fork(p, streams);
  const std::vector<CeRingTransfer> rs_out = ce_ring_sends(g, nb.pos, false);
  const std::vector<CeRingTransfer> rs_in = ce_ring_sends(g, (nb.pos + n - 1) % n, false);
  const std::vector<CeRingTransfer> ag_out = ce_ring_sends(g, nb.pos, true);
  const std::vector<CeRingTransfer> ag_in = ce_ring_sends(g, (nb.pos + n - 1) % n, true);
  const CeRingIndex rs_in_index(rs_in, n), ag_in_index(ag_in, n);
  const int red_event0 = p.events;  // the reduce of received transfer v records red_event0 + v
  p.events += static_cast<int>(rs_in.size());
  auto loc = [&](CeBuf b, int rank, const CeRingTransfer& t) {
    return CeLoc{b, rank, ce_byte_of(g, ce_chunk(g, owned_range(g.packs, n, t.segment), t.chunk).begin)};
  };
  auto bytes = [&](const CeRingTransfer& t) { return ce_bytes_of(g, ce_chunk(g, owned_range(g.packs, n, t.segment), t.chunk)); };
  auto count = [&](std::size_t u) { return static_cast<std::uint32_t>(u / S + 1); };
  auto stream = [&](std::size_t u) -> std::vector<CeOp>& { return p.streams[1 + u % S]; };

  // Reduce-scatter sends: the partial of step k-1 must be reduced first (an event of stream 0),
  // and the slot at the next rank free (its credit).
  for (std::size_t u = 0; u < rs_out.size(); ++u) {
    const CeRingTransfer& t = rs_out[u];
    auto& ops = stream(u);
    const std::size_t v = rs_in_index(t.segment, t.chunk);  // received before: a partial
    const bool partial = v < rs_in.size();
    if (partial) ops.push_back(ce_event_op(CeOpKind::await, red_event0 + static_cast<int>(v)));
    if (u >= slots) ops.push_back(ce_wait(r, kCeRingCreditFlag, static_cast<std::uint32_t>(u - slots + 1), nb.next));
    ops.push_back(ce_copy(CeLoc{CeBuf::staging, nb.next, (u % slots) * ce_slot_bytes(g)},
                          loc(partial ? CeBuf::out : CeBuf::in, r, t), bytes(t)));
    ops.push_back(ce_flag_op(CeOpKind::signal, nb.next, ce_ring_data_flag(static_cast<int>(u % S)), count(u)));
  }
  // All-gather sends: the complete segment once reduced, then each segment as it arrives.
  for (std::size_t a = 0; a < ag_out.size(); ++a) {
    const CeRingTransfer& t = ag_out[a];
    auto& ops = stream(a);
    const std::size_t w = ag_in_index(t.segment, t.chunk);
    if (w < ag_in.size()) {
      ops.push_back(ce_wait(r, ce_ring_gather_flag(static_cast<int>(w % S)), count(w), nb.prev));
    } else {
      ops.push_back(ce_event_op(CeOpKind::await, red_event0 + static_cast<int>(rs_in_index(t.segment, t.chunk))));
    }
    ops.push_back(ce_copy(loc(CeBuf::out, nb.next, t), loc(CeBuf::out, r, t), bytes(t)));
    ops.push_back(ce_flag_op(CeOpKind::signal, nb.next, ce_ring_gather_flag(static_cast<int>(a % S)), count(a)));
  }

  // Stream 0: reduce each received partial with the own input, then credit the sender.
  auto& red = p.streams[0];
  for (std::size_t v = 0; v < rs_in.size(); ++v) {
    const CeRingTransfer& t = rs_in[v];
    red.push_back(ce_wait(r, ce_ring_data_flag(static_cast<int>(v % S)), count(v), nb.prev));
    CeOp o;
    o.kind = CeOpKind::reduce;
    o.dst = loc(CeBuf::out, r, t);
    o.bytes = bytes(t);
    o.srcs[0] = CeLoc{CeBuf::staging, r, (v % slots) * ce_slot_bytes(g)};
    o.srcs[1] = loc(CeBuf::in, r, t);
    o.nsrc = 2;
    red.push_back(o);
    if (v + 1 == rs_in.size())  // every D has its last count: reset before the last credit
      for (int s = 0; s < streams; ++s) red.push_back(ce_flag_op(CeOpKind::reset, r, ce_ring_data_flag(s), 0));
    red.push_back(ce_flag_op(CeOpKind::signal, nb.prev, kCeRingCreditFlag, static_cast<std::uint32_t>(v + 1)));
    red.push_back(ce_event_op(CeOpKind::record, red_event0 + static_cast<int>(v)));
  }
  ce_join(p);
  // Every slot filled at the next rank is consumed, every segment arrived: reset C and G.
  if (!rs_out.empty()) {
    red.push_back(ce_wait(r, kCeRingCreditFlag, static_cast<std::uint32_t>(rs_out.size()), nb.next));
    red.push_back(ce_flag_op(CeOpKind::reset, r, kCeRingCreditFlag, 0));
  }
  for (std::size_t s = 0; s < S && s < ag_in.size(); ++s) {
    const std::size_t last = ag_in.size() - 1 - ((ag_in.size() - 1 - s) % S);  // the stream's last transfer
    red.push_back(ce_wait(r, ce_ring_gather_flag(static_cast<int>(s)), count(last), nb.prev));
    red.push_back(ce_flag_op(CeOpKind::reset, r, ce_ring_gather_flag(static_cast<int>(s)), 0));
  }
  return p;
}

}  // namespace arbench::algo
