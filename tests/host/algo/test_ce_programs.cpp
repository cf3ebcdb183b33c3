// The copy-engine programs (include/arbench/algo/ce/) as data, without running them: the
// configurations a user types, the chunk policy, and for every world size, chunking and stream
// count the flag rules of ce_program.hpp: every flag has one writer (one rank, one stream), its
// reader waits for the last count it is sent and resets it, every reset is of the resetting rank's
// own flag, and every event awaited is recorded in the same op.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "arbench/algo/ce/ce_island.hpp"
#include "arbench/algo/ce/ce_policy.hpp"
#include "arbench/algo/ce/ce_ring.hpp"
#include "arbench/algo/ce/ce_twoshot.hpp"
#include "arbench/core/round_trips.hpp"

namespace arbench::algo {
namespace {

TEST(CePrograms, ConfigurationsParseAndRefuse) {
  const auto c = parse_ce_config("chunk:4M/streams:2/slots:3");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->chunk, 4u << 20);
  EXPECT_EQ(c->streams, 2);
  EXPECT_EQ(c->slots, 3);
  EXPECT_EQ(parse_ce_config("chunk:256K")->chunk, 256u << 10);
  EXPECT_EQ(parse_ce_config("chunk:65536")->chunk, 65536u);
  for (const char* bad : {"", "chunk", "chunk:", "chunk:0", "chunk:4G", "chunk:17", "chunk:1M/", "chunk:1M/chunk:2M",
                          "streams:9", "streams:0", "slots:17", "blocks:4", "chunk:1M//streams:2", "chunk:-1"})
    EXPECT_FALSE(parse_ce_config(bad)) << bad;
}

TEST(CePrograms, DefaultChunkFollowsTheSegmentWithinItsBounds) {
  EXPECT_EQ(CePolicy::chunk_packs(1, 0) * kPackBytes, CePolicy::kMinChunk);
  EXPECT_EQ(CePolicy::chunk_packs((64u << 20) / kPackBytes, 0) * kPackBytes, 4u << 20);  // 4 chunks of a 64 MiB segment
  EXPECT_EQ(CePolicy::chunk_packs((1u << 30) / kPackBytes, 0) * kPackBytes, CePolicy::kMaxChunk);
  EXPECT_EQ(CePolicy::chunk_packs(1000, 48), 3u);  // asked: 48 bytes
  EXPECT_EQ(CePolicy::chunk_packs(1, 48, 50.0), 3u);  // a configuration wins over a rate
  EXPECT_EQ(CePolicy::reduce_blocks(1), 1);
  EXPECT_EQ(CePolicy::reduce_blocks(std::size_t{1} << 30), CePolicy::kReduceBlocks);
}

// With a copy-engine rate R (GB/s), the smallest chunk copies for at least 10 x 4 us at R (a power of
// two); the segment's quarter still decides above it; kMaxChunk yields to a faster link's minimum.
TEST(CePrograms, DefaultChunkFollowsTheCopyEngineRate) {
  EXPECT_EQ(CePolicy::min_chunk_bytes(0), CePolicy::kMinChunk);
  EXPECT_EQ(CePolicy::min_chunk_bytes(10), 512u << 10);  // 400 kB
  EXPECT_EQ(CePolicy::min_chunk_bytes(25), 1u << 20);    // 1.0 MB
  EXPECT_EQ(CePolicy::min_chunk_bytes(50), 2u << 20);    // 2.0 MB
  EXPECT_EQ(CePolicy::min_chunk_bytes(200), 8u << 20);   // 8.0 MB: above kMaxChunk
  const std::size_t seg = (1u << 20) / kPackBytes;       // 8 ranks, 8 MiB: a 1 MiB segment
  EXPECT_EQ(CePolicy::chunk_packs(seg, 0) * kPackBytes, 256u << 10);
  EXPECT_EQ(CePolicy::chunk_packs(seg, 0, 10) * kPackBytes, 512u << 10);
  EXPECT_EQ(CePolicy::chunk_packs(seg, 0, 50) * kPackBytes, 2u << 20);
  EXPECT_EQ(CePolicy::chunk_packs((64u << 20) / kPackBytes, 0, 25) * kPackBytes, 4u << 20);  // the quarter of 64 MiB
  EXPECT_EQ(CePolicy::chunk_packs((1u << 30) / kPackBytes, 0, 200) * kPackBytes, 8u << 20);
  EXPECT_EQ(CePolicy::chunk_source(0, 0), CeChunkSource::fixed);
  EXPECT_EQ(CePolicy::chunk_source(0, 25), CeChunkSource::rates);
  EXPECT_EQ(CePolicy::chunk_source(1 << 20, 25), CeChunkSource::configuration);
}

// The flag rules over every rank's program of one case.
void expect_flag_rules(const std::vector<CeProgram>& progs, const std::string& what) {
  const int n = static_cast<int>(progs.size());
  std::map<std::pair<int, int>, std::set<std::pair<int, int>>> writers;  // (owner, flag) -> (rank, stream)
  std::map<std::pair<int, int>, std::uint32_t> last_sent, last_waited;
  std::set<std::pair<int, int>> reset;
  for (int r = 0; r < n; ++r) {
    std::set<int> recorded;
    for (std::size_t s = 0; s < progs[r].streams.size(); ++s)
      for (const CeOp& o : progs[r].streams[s]) {
        const auto key = std::make_pair(o.flag_rank, o.flag);
        if (o.kind == CeOpKind::signal) {
          writers[key].insert({r, static_cast<int>(s)});
          EXPECT_GT(o.value, last_sent[key]) << what << ": counts of a flag only grow within an op";
          last_sent[key] = o.value;
          EXPECT_NE(o.flag_rank, r) << what << ": a rank signals only peers (its own streams use events)";
        } else if (o.kind == CeOpKind::wait || o.kind == CeOpKind::reset) {
          EXPECT_EQ(o.flag_rank, r) << what << ": waits and resets are on the rank's own flags";
          if (o.kind == CeOpKind::wait) last_waited[key] = std::max(last_waited[key], o.value);
          if (o.kind == CeOpKind::reset) reset.insert(key);
        } else if (o.kind == CeOpKind::record) {
          recorded.insert(o.event);
        }
        EXPECT_LT(o.flag, kCeFlagWords) << what;
      }
    for (const auto& st : progs[r].streams)
      for (const CeOp& o : st)
        if (o.kind == CeOpKind::await) {
          EXPECT_TRUE(recorded.count(o.event)) << what << ": event never recorded";
        }
  }
  for (const auto& [key, w] : writers) {
    EXPECT_EQ(w.size(), 1u) << what << ": flag " << key.second << " of rank " << key.first << " has several writers";
    EXPECT_EQ(last_waited[key], last_sent[key]) << what << ": flag " << key.second << " of rank " << key.first
                                                << ": the reader must see the last count before it resets";
    EXPECT_TRUE(reset.count(key)) << what << ": flag " << key.second << " of rank " << key.first << " never reset";
  }
}

TEST(CePrograms, EveryFlagHasOneWriterItsLastCountIsAwaitedAndItIsReset) {
  for (int world = 2; world <= 8; ++world)
    for (std::size_t bytes : {std::size_t{16}, std::size_t{1000}, std::size_t{8192}})
      for (std::size_t chunk : {std::size_t{16}, std::size_t{256}, std::size_t{0}})
        for (int streams : {1, 3})
          for (int slots : {1, 2}) {
            const CeGeometry g = ce_geometry(world, DType::bf16, bytes, {chunk, streams, slots});
            std::vector<CeProgram> two, ring;
            std::vector<int> order;
            for (int r = world - 1; r >= 0; --r) order.push_back(r);
            for (int r = 0; r < world; ++r) {
              two.push_back(ce_twoshot_program(g, r));
              ring.push_back(ce_ring_program(g, order, r));
            }
            const std::string what = "world " + std::to_string(world) + " bytes " + std::to_string(bytes) + " chunk " +
                                     std::to_string(chunk) + " streams " + std::to_string(streams) + " slots " +
                                     std::to_string(slots);
            expect_flag_rules(two, "ce-twoshot " + what);
            expect_flag_rules(ring, "ce-ring " + what);
            if (world % 2 == 0) {
              std::vector<int> halves;
              for (int r = 0; r < world; ++r) halves.push_back(r < world / 2 ? 0 : 1);
              std::vector<CeProgram> isl;
              for (int r = 0; r < world; ++r) isl.push_back(ce_island_program(g, halves, r));
              expect_flag_rules(isl, "ce-island " + what);
            }
          }
}

// Every inter-GPU byte is a copy: per rank, the copies carry 2(N-1)/N of the message (one chunk
// per segment: every byte once out in each phase), and the reduce kernels read only own memory.
TEST(CePrograms, CopiesCarryTheAllReduceVolumeAndReducesReadOwnMemory) {
  for (int world : {2, 3, 8}) {
    const std::size_t bytes = 4096 * static_cast<std::size_t>(world);
    const CeGeometry g = ce_geometry(world, DType::fp32, bytes, {});
    std::vector<int> order;
    for (int r = 0; r < world; ++r) order.push_back(r);
    for (int r = 0; r < world; ++r)
      for (const CeProgram& p : {ce_twoshot_program(g, r), ce_ring_program(g, order, r)}) {
        std::size_t out = 0;
        for (const auto& st : p.streams)
          for (const CeOp& o : st) {
            if (o.kind == CeOpKind::copy) {
              EXPECT_EQ(o.src.rank, r);
              EXPECT_NE(o.dst.rank, r);
              out += o.bytes;
            }
            if (o.kind == CeOpKind::reduce) {
              for (int s = 0; s < o.nsrc; ++s) EXPECT_EQ(o.srcs[s].rank, r);
            }
          }
        EXPECT_EQ(out, 2 * bytes * static_cast<std::size_t>(world - 1) / static_cast<std::size_t>(world)) << world;
      }
  }
}

// The longest chain of stream waits for a peer's signal through every rank's program: the round
// trips of one op when nothing else limits it. Each op depends on the op before it on its stream,
// an await on its event's record, a wait on the signal that writes the count it waits for.
int critical_waits(const std::vector<CeProgram>& progs) {
  using Site = std::tuple<int, std::size_t, std::size_t>;  // rank, stream, index
  std::map<std::tuple<int, int, std::uint32_t>, Site> signal_of;  // (owner, flag, value)
  std::map<std::pair<int, int>, Site> record_of;                   // (rank, event)
  for (int r = 0; r < static_cast<int>(progs.size()); ++r)
    for (std::size_t s = 0; s < progs[r].streams.size(); ++s)
      for (std::size_t i = 0; i < progs[r].streams[s].size(); ++i) {
        const CeOp& o = progs[r].streams[s][i];
        if (o.kind == CeOpKind::signal) signal_of[{o.flag_rank, o.flag, o.value}] = {r, s, i};
        if (o.kind == CeOpKind::record) record_of[{r, o.event}] = {r, s, i};
      }
  std::map<Site, int> memo;
  std::function<int(const Site&)> depth = [&](const Site& at) -> int {
    if (auto m = memo.find(at); m != memo.end()) return m->second;
    const auto [r, s, i] = at;
    const CeOp& o = progs[r].streams[s][i];
    int d = i > 0 ? depth({r, s, i - 1}) : 0;
    if (o.kind == CeOpKind::await) d = std::max(d, depth(record_of.at({r, o.event})));
    if (o.kind == CeOpKind::wait) d = std::max(d, depth(signal_of.at({o.flag_rank, o.flag, o.value})) + 1);
    return memo[at] = d;
  };
  int most = 0;
  for (int r = 0; r < static_cast<int>(progs.size()); ++r)
    for (std::size_t s = 0; s < progs[r].streams.size(); ++s)
      if (!progs[r].streams[s].empty()) most = std::max(most, depth({r, s, progs[r].streams[s].size() - 1}));
  return most;
}

// The round-trip table's stream waits (scripts/round_trip_bounds.py, STREAM_WAITS) are the
// programs' own: one chunk per segment, the longest chain of waits for a peer.
TEST(CePrograms, StreamWaitsOfTheRoundTripTableAreTheProgramsLongestChain) {
  for (int world = 2; world <= 8; ++world) {
    const CeGeometry g = ce_geometry(world, DType::bf16, 1024 * static_cast<std::size_t>(world), {});
    std::vector<CeProgram> two, ring;
    std::vector<int> order;
    for (int r = 0; r < world; ++r) order.push_back(r);
    for (int r = 0; r < world; ++r) {
      two.push_back(ce_twoshot_program(g, r));
      ring.push_back(ce_ring_program(g, order, r));
    }
    EXPECT_EQ(critical_waits(two), stream_round_trips("ce-twoshot", world)) << world;
    EXPECT_EQ(critical_waits(ring), stream_round_trips("ce-ring", world)) << world;
    if (world % 2 == 0 && world >= 4) {  // two islands of two or more (with one rank each: no inside phase)
      std::vector<int> halves;
      for (int r = 0; r < world; ++r) halves.push_back(r % 2);
      std::vector<CeProgram> isl;
      for (int r = 0; r < world; ++r) isl.push_back(ce_island_program(g, halves, r));
      EXPECT_EQ(critical_waits(isl), stream_round_trips("ce-island", world)) << world;
    }
  }
}

}  // namespace
}  // namespace arbench::algo
