// The copy-engine variants' programs (ce-twoshot, ce-ring: docs/variants.md, "Copy engines").
//
// A copy-engine all-reduce is not a kernel but a list of stream operations per rank: copies
// (cudaMemcpyAsync between mapped peers, done by a copy engine), flag writes and waits (stream
// memory operations on a peer's or one's own flag word), a small reduce kernel, and events that
// order a rank's own streams. ce_twoshot.hpp and ce_ring.hpp write that list for one rank; the
// GPU variant enqueues it on CUDA streams (kernels/ce/ce_gpu.cu), the host twin runs each stream
// on a thread that executes it in order (kernels/ce/ce_twin.cpp), so both run the same program.
//
// Flags: single-writer 32-bit counters in the owner's flag words. A writer stores the count of
// chunks it has delivered; a waiter waits until (int32)(flag - value) >= 0, which is
// cuStreamWaitValue32's CU_STREAM_WAIT_VALUE_GEQ (a wrap-safe comparison). The value of a stream
// memory operation is fixed when it is enqueued, and so fixed in a captured CUDA graph that the
// harness replays: a counter cannot keep growing across replays the way the kernels' epochs in
// device memory do. So every flag counts from 0 within one op and its one reader resets it to 0
// once it has seen the op's last count, and the protocol orders that reset before anything that
// lets the writer start the next op's writes (the reset precedes the reader's last credit, or the
// writer's next write depends on data the reader sends after its reset): no write of one op can
// land after the reset for that op, and no stale count can satisfy a later wait.
// Events (record/await) order a rank's own streams; the host twin keeps one word per event,
// set to the rank's op number (monotonic), so a later op never sees an earlier op's record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "arbench/algo/pack.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/core/dtype.hpp"

namespace arbench::algo {

// Where a copy, a reduce or a flag points: buffer `buf` of rank `rank` (as the executing rank
// addresses it: its own, or a peer's mapping), at byte `offset`.
enum class CeBuf : std::uint8_t { in, out, staging };
struct CeLoc {
  CeBuf buf = CeBuf::in;
  int rank = 0;
  std::size_t offset = 0;
};

enum class CeOpKind : std::uint8_t {
  copy,    // bytes from src to dst (a copy engine)
  signal,  // flag `flag` of rank `flag_rank` := value (after everything before it on the stream)
  wait,    // until own flag `flag` >= value (cyclic)
  reset,   // own flag `flag` := 0
  reduce,  // dst := sum of srcs[0..nsrc) element-wise, fp32 accumulation in that order (a kernel)
  record,  // event `event` recorded on this stream
  await,   // this stream waits for event `event`'s record
};

inline constexpr int kCeMaxSources = 8;  // == arbench::kMaxRanks (fabric.hpp), kept host-free
inline constexpr int kCeMaxStreams = 8;  // copy streams per rank (configuration `streams`)
// Flag words per rank (ce_twoshot.hpp, ce_ring.hpp lay them out).
inline constexpr int kCeFlagWords = 5 * 8;

struct CeOp {
  CeOpKind kind = CeOpKind::copy;
  CeLoc dst, src;      // copy; reduce: dst
  std::size_t bytes = 0;  // copy, reduce: the chunk's bytes
  CeLoc srcs[kCeMaxSources];  // reduce: the operands, in accumulation order
  int nsrc = 0;
  int flag_rank = 0;   // signal: whose flag word
  int flag = 0;        // signal, wait, reset: which word
  int writer = 0;      // wait: the rank whose signal it waits for (for the error message)
  std::uint32_t value = 0;
  int event = 0;       // record, await
};

// One rank's program: stream 0 is the stream the harness hands the op (the reduce stream; the
// op starts and ends there), streams 1.. are copy streams.
struct CeProgram {
  std::vector<std::vector<CeOp>> streams;
  int events = 0;  // distinct events the program records
};

// The case as the programs see it.
struct CeGeometry {
  int world = 1;
  DType dtype = DType::bf16;
  std::size_t bytes = 0;        // the message
  std::size_t packs = 0;        // 16-byte packs (the last one possibly partial)
  std::size_t chunk_packs = 1;  // a pipelined chunk
  int slots = 2;                // staging slots per inbound link (copies in flight per link)
  int copy_streams = 1;         // copy streams per rank
};

// A range of packs as bytes of the message (the tail pack ends at the message's end).
inline std::size_t ce_byte_of(const CeGeometry& g, std::size_t pack) {
  const std::size_t b = pack * kPackBytes;
  return b < g.bytes ? b : g.bytes;
}
inline std::size_t ce_bytes_of(const CeGeometry& g, Range r) { return ce_byte_of(g, r.end) - ce_byte_of(g, r.begin); }

// Chunks of a range of packs, and chunk j of it.
inline std::size_t ce_chunks(const CeGeometry& g, Range r) { return (r.size() + g.chunk_packs - 1) / g.chunk_packs; }
inline Range ce_chunk(const CeGeometry& g, Range r, std::size_t j) {
  const std::size_t b = r.begin + j * g.chunk_packs;
  const std::size_t e = b + g.chunk_packs < r.end ? b + g.chunk_packs : r.end;
  return Range{b, e};
}
inline std::size_t ce_slot_bytes(const CeGeometry& g) { return g.chunk_packs * kPackBytes; }

// Program builders' small helpers.
inline CeOp ce_copy(CeLoc dst, CeLoc src, std::size_t bytes) {
  CeOp o;
  o.kind = CeOpKind::copy, o.dst = dst, o.src = src, o.bytes = bytes;
  return o;
}
inline CeOp ce_flag_op(CeOpKind k, int flag_rank, int flag, std::uint32_t value) {
  CeOp o;
  o.kind = k, o.flag_rank = flag_rank, o.flag = flag, o.value = value, o.writer = flag_rank;
  return o;
}
// Wait until own flag `flag` of rank `r`, written by `writer`, reaches `value`.
inline CeOp ce_wait(int r, int flag, std::uint32_t value, int writer) {
  CeOp o = ce_flag_op(CeOpKind::wait, r, flag, value);
  o.writer = writer;
  return o;
}
inline CeOp ce_event_op(CeOpKind k, int event) {
  CeOp o;
  o.kind = k, o.event = event;
  return o;
}

// Stream 0 forks every copy stream at the start and joins them at the end (events 0..2S-1).
inline void ce_fork(CeProgram& p, int copy_streams) {
  p.streams.assign(static_cast<std::size_t>(copy_streams) + 1, {});
  p.streams[0].push_back(ce_event_op(CeOpKind::record, 0));
  for (int s = 1; s <= copy_streams; ++s) p.streams[static_cast<std::size_t>(s)].push_back(ce_event_op(CeOpKind::await, 0));
  p.events = 1;
}
inline void ce_join(CeProgram& p) {
  for (std::size_t s = 1; s < p.streams.size(); ++s) {
    p.streams[s].push_back(ce_event_op(CeOpKind::record, p.events));
    p.streams[0].push_back(ce_event_op(CeOpKind::await, p.events));
    ++p.events;
  }
}

// Operations of a program (the traffic and the tests count them).
inline std::size_t ce_count(const CeProgram& p, CeOpKind k) {
  std::size_t n = 0;
  for (const auto& s : p.streams)
    for (const CeOp& o : s) n += o.kind == k ? 1u : 0u;
  return n;
}

// Why `g` cannot be run (empty when it can).
inline std::string ce_geometry_problem(const CeGeometry& g) {
  if (g.world < 1 || g.world > kCeMaxSources) return "world size " + std::to_string(g.world) + " outside 1..8";
  if (g.chunk_packs < 1) return "chunk of 0 bytes";
  if (g.slots < 1) return "0 staging slots";
  if (g.copy_streams < 1 || g.copy_streams > kCeMaxStreams)
    return "copy streams " + std::to_string(g.copy_streams) + " outside 1.." + std::to_string(kCeMaxStreams);
  return {};
}

}  // namespace arbench::algo
