// ce-island's program for one rank (ce_program.hpp: the op kinds and the flag rules): the island
// schedule with copy phases, for islands of equal size k (m islands; IslandMap: an island's ranks
// in rank order are its positions 0..k-1).
//
// 1. Inside: the rank at position p owns segment p (owned_range(packs, k, p)); every island peer
//    copies its part of it into p's staging (slots [sender][j % slots]), p reduces the island's
//    partial in rank order into its own partial area (staging, not its output: the partial is
//    still being copied out while the output is written).
// 2. Across: p copies each partial chunk into the staging of its partner in every other island
//    (the rank at the same position); each partner adds the m partials in island order into its
//    output, so every partner of a segment computes the same bits.
// 3. Inside again: p copies each final chunk into every island peer's output.
// Per copy stream the three phases are interleaved by chunk (gather j, cross j-1, scatter j-2).
// Flag words: D1[q] = q, C1[q] = 8 + q (inside), D2[t] = 16 + t, C2[t] = 24 + t (across), G[q] = 32 + q.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "arbench/algo/ce/ce_program.hpp"
#include "arbench/algo/ce/ce_twoshot.hpp"
#include "arbench/algo/island/island_map.hpp"

namespace arbench::algo {

inline int ce_island_inside_data_flag(int from) { return from; }
inline int ce_island_inside_credit_flag(int from) { return 8 + from; }
inline int ce_island_across_data_flag(int from) { return 16 + from; }
inline int ce_island_across_credit_flag(int from) { return 24 + from; }
inline int ce_island_gather_flag(int from) { return 32 + from; }

// Why islands `labels` (a label per rank) cannot run ce-island at `world` ranks ("" when it can): two or more islands,
// all of one size.
inline std::string ce_island_problem(const std::vector<int>& labels, int world) {
  if (std::string why = island_map_problem(labels, world); !why.empty()) return why;
  const IslandMap m = make_island_map(labels, world);
  if (m.islands < 2) return "the ranks form one island: nothing to cross; ce-island needs two or more";
  for (int h = 1; h < m.islands; ++h)
    if (island_size(m, h) != island_size(m, 0))
      return "islands of different sizes (" + islands_text(labels) + "); ce-island needs islands of one size";
  return {};
}

// Staging: inside slots [sender][slot], across slots [sender][slot], then the partial (a segment).
inline std::size_t ce_island_across_base(const CeGeometry& g) { return ce_twoshot_staging_bytes(g); }
inline std::size_t ce_island_partial_base(const CeGeometry& g) { return 2 * ce_twoshot_staging_bytes(g); }
inline std::size_t ce_island_staging_bytes(const CeGeometry& g, int k) {
  return ce_island_partial_base(g) + (g.packs / static_cast<std::size_t>(k) + 1) * kPackBytes;
}

inline CeProgram ce_island_program(const CeGeometry& g, const std::vector<int>& labels, int r) {
  const int n = g.world;
  const IslandMap m = make_island_map(labels, n);
  const int isl = island_of(m, r), p = island_index(m, r), k = island_size(m, isl);
  std::vector<int> mates, partners;  // island peers in rank order; partners in island order
  for (int q = 0; q < k; ++q)
    if (q != p) mates.push_back(island_rank(m, isl, q));
  for (int h = 0; h < m.islands; ++h)
    if (h != isl) partners.push_back(island_rank(m, h, p));
  auto seg = [&](int pos) { return owned_range(g.packs, k, pos); };
  auto chunks = [&](int pos) { return ce_chunks(g, seg(pos)); };
  auto at = [&](int pos, std::size_t j) { return ce_chunk(g, seg(pos), j); };
  auto off = [&](int pos, std::size_t j) { return ce_byte_of(g, at(pos, j).begin); };
  auto len = [&](int pos, std::size_t j) { return ce_bytes_of(g, at(pos, j)); };
  auto partial = [&](int rank, std::size_t j) {  // chunk j of the owner's partial, in its staging
    return CeLoc{CeBuf::staging, rank, ce_island_partial_base(g) + (at(p, j).begin - seg(p).begin) * kPackBytes};
  };
  auto across_slot = [&](int rank, int from, std::size_t j) {
    return CeLoc{CeBuf::staging, rank, ce_island_across_base(g) + ce_twoshot_slot_offset(g, from, j)};
  };
  const auto slots = static_cast<std::size_t>(g.slots);
  const std::size_t own = chunks(p);
  const int peers = static_cast<int>(mates.size() + partners.size());
  const int streams = std::max(1, std::min(g.copy_streams, peers));
  CeProgram prog;
  ce_fork(prog, streams);
  const int ev1 = prog.events, ev2 = prog.events + static_cast<int>(own);  // reduces of phase 1, 2
  prog.events += 2 * static_cast<int>(own);
  auto stream_of = [&](int peer_index) { return static_cast<std::size_t>(1 + peer_index % streams); };
  auto credit_wait = [&](std::vector<CeOp>& ops, int flag, std::size_t j, int writer) {
    if (j >= slots) ops.push_back(ce_wait(r, flag, static_cast<std::uint32_t>(j - slots + 1), writer));
  };

  std::size_t most = own;
  for (int q = 0; q < k; ++q) most = std::max(most, chunks(q));
  for (std::size_t j = 0; j < most + 2; ++j) {
    for (std::size_t i = 0; i < mates.size(); ++i) {  // 1. my part of every mate's segment
      const int q = mates[i], qp = island_index(m, q);
      if (j >= chunks(qp)) continue;
      auto& ops = prog.streams[stream_of(static_cast<int>(i))];
      credit_wait(ops, ce_island_inside_credit_flag(q), j, q);
      ops.push_back(ce_copy(CeLoc{CeBuf::staging, q, ce_twoshot_slot_offset(g, r, j)}, CeLoc{CeBuf::in, r, off(qp, j)},
                            len(qp, j)));
      ops.push_back(ce_flag_op(CeOpKind::signal, q, ce_island_inside_data_flag(r), static_cast<std::uint32_t>(j + 1)));
    }
    if (j >= 1 && j - 1 < own)  // 2. my island's partial of chunk j-1 to every partner
      for (std::size_t i = 0; i < partners.size(); ++i) {
        const std::size_t c = j - 1;
        const int t = partners[i];
        auto& ops = prog.streams[stream_of(static_cast<int>(mates.size() + i))];
        ops.push_back(ce_event_op(CeOpKind::await, ev1 + static_cast<int>(c)));
        credit_wait(ops, ce_island_across_credit_flag(t), c, t);
        ops.push_back(ce_copy(across_slot(t, r, c), partial(r, c), len(p, c)));
        ops.push_back(ce_flag_op(CeOpKind::signal, t, ce_island_across_data_flag(r), static_cast<std::uint32_t>(c + 1)));
      }
    if (j >= 2 && j - 2 < own)  // 3. the final chunk j-2 into every mate's output
      for (std::size_t i = 0; i < mates.size(); ++i) {
        const std::size_t c = j - 2;
        const int q = mates[i];
        auto& ops = prog.streams[stream_of(static_cast<int>(i))];
        ops.push_back(ce_event_op(CeOpKind::await, ev2 + static_cast<int>(c)));
        ops.push_back(ce_copy(CeLoc{CeBuf::out, q, off(p, c)}, CeLoc{CeBuf::out, r, off(p, c)}, len(p, c)));
        ops.push_back(ce_flag_op(CeOpKind::signal, q, ce_island_gather_flag(r), static_cast<std::uint32_t>(c + 1)));
      }
  }
  for (std::size_t i = 0; i < mates.size(); ++i) {  // every slot filled at a peer consumed: reset the credits
    const int q = mates[i];
    if (chunks(island_index(m, q)) == 0) continue;
    auto& ops = prog.streams[stream_of(static_cast<int>(i))];
    ops.push_back(ce_wait(r, ce_island_inside_credit_flag(q), static_cast<std::uint32_t>(chunks(island_index(m, q))), q));
    ops.push_back(ce_flag_op(CeOpKind::reset, r, ce_island_inside_credit_flag(q), 0));
  }
  for (std::size_t i = 0; i < partners.size() && own > 0; ++i) {
    const int t = partners[i];
    auto& ops = prog.streams[stream_of(static_cast<int>(mates.size() + i))];
    ops.push_back(ce_wait(r, ce_island_across_credit_flag(t), static_cast<std::uint32_t>(own), t));
    ops.push_back(ce_flag_op(CeOpKind::reset, r, ce_island_across_credit_flag(t), 0));
  }

  // Stream 0: the island's partial of chunk j, then the sum of the partials of chunk j-1.
  auto& red = prog.streams[0];
  auto reduce_inside = [&](std::size_t j) {
    for (int q : mates) red.push_back(ce_wait(r, ce_island_inside_data_flag(q), static_cast<std::uint32_t>(j + 1), q));
    CeOp o;
    o.kind = CeOpKind::reduce;
    o.dst = partial(r, j);
    o.bytes = len(p, j);
    int s = 0;
    for (int q = 0; q < n; ++q)
      if (island_of(m, q) == isl)
        o.srcs[s++] = q == r ? CeLoc{CeBuf::in, r, off(p, j)} : CeLoc{CeBuf::staging, r, ce_twoshot_slot_offset(g, q, j)};
    o.nsrc = s;
    red.push_back(o);
    if (j + 1 == own)
      for (int q : mates) red.push_back(ce_flag_op(CeOpKind::reset, r, ce_island_inside_data_flag(q), 0));
    for (int q : mates) red.push_back(ce_flag_op(CeOpKind::signal, q, ce_island_inside_credit_flag(r), static_cast<std::uint32_t>(j + 1)));
    red.push_back(ce_event_op(CeOpKind::record, ev1 + static_cast<int>(j)));
  };
  auto reduce_across = [&](std::size_t j) {
    for (int t : partners) red.push_back(ce_wait(r, ce_island_across_data_flag(t), static_cast<std::uint32_t>(j + 1), t));
    CeOp o;
    o.kind = CeOpKind::reduce;
    o.dst = CeLoc{CeBuf::out, r, off(p, j)};
    o.bytes = len(p, j);
    for (int h = 0; h < m.islands; ++h) o.srcs[h] = h == isl ? partial(r, j) : across_slot(r, island_rank(m, h, p), j);
    o.nsrc = m.islands;
    red.push_back(o);
    if (j + 1 == own)
      for (int t : partners) red.push_back(ce_flag_op(CeOpKind::reset, r, ce_island_across_data_flag(t), 0));
    for (int t : partners) red.push_back(ce_flag_op(CeOpKind::signal, t, ce_island_across_credit_flag(r), static_cast<std::uint32_t>(j + 1)));
    red.push_back(ce_event_op(CeOpKind::record, ev2 + static_cast<int>(j)));
  };
  for (std::size_t j = 0; j <= own; ++j) {
    if (j < own) reduce_inside(j);
    if (j >= 1) reduce_across(j - 1);
  }
  ce_join(prog);
  for (int q : mates) {
    const std::size_t kq = chunks(island_index(m, q));
    if (kq == 0) continue;
    red.push_back(ce_wait(r, ce_island_gather_flag(q), static_cast<std::uint32_t>(kq), q));
    red.push_back(ce_flag_op(CeOpKind::reset, r, ce_island_gather_flag(q), 0));
  }
  return prog;
}

}  // namespace arbench::algo
