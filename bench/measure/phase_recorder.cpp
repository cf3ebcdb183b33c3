#include "measure/phase_recorder.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "arbench/world.hpp"

namespace arbench {
namespace {

// Every rank's record after one op. In a multi-process run each process reads the ranks it drives
// and the processes swap them: [rank (int32), record words] per driven rank.
// Each mark is moved onto the first rank's clock (Fabric::phase_clock_offset_ns); `aligned` turns
// false when an offset is unknown.
std::vector<std::vector<std::uint64_t>> read_records(Fabric& f, const RankBuffers& rec, bool& aligned) {
  std::string mine;
  std::vector<std::uint64_t> words(kPhaseRecordWords);
  for (int r = 0; r < f.world(); ++r) {
    if (!f.drives(r)) continue;
    f.download(r, words.data(), rec.local(r), kPhaseRecordBytes);
    const std::optional<std::int64_t> offset = f.phase_clock_offset_ns(r);
    aligned = aligned && offset.has_value();
    for (std::uint64_t& w : words)
      if (w != 0 && offset) w -= static_cast<std::uint64_t>(*offset);
    const std::int32_t rank = r;
    mine.append(reinterpret_cast<const char*>(&rank), sizeof rank);
    mine.append(reinterpret_cast<const char*>(words.data()), kPhaseRecordBytes);
  }
  std::vector<std::vector<std::uint64_t>> out(static_cast<std::size_t>(f.world()));
  for (const std::string& part : f.processes().all_gather(mine, "gathering the phase marks")) {
    constexpr std::size_t kEntry = sizeof(std::int32_t) + kPhaseRecordBytes;
    for (std::size_t at = 0; at + kEntry <= part.size(); at += kEntry) {
      std::int32_t rank = 0;
      std::memcpy(&rank, part.data() + at, sizeof rank);
      if (rank < 0 || rank >= f.world()) throw CaseError("phase marks of an unknown rank " + std::to_string(rank));
      auto& dst = out[static_cast<std::size_t>(rank)];
      dst.resize(kPhaseRecordWords);
      std::memcpy(dst.data(), part.data() + at + sizeof rank, kPhaseRecordBytes);
    }
  }
  return out;
}

}  // namespace

std::optional<PhaseTimeline> record_phase_timeline(Variant& v, Fabric& f, const RankOp& op, bool cold_cache,
                                                   int ops) {
  const std::vector<PhaseMark> marks = v.phase_marks();
  if (marks.empty()) return std::nullopt;
  std::unique_ptr<RankBuffers> rec = f.alloc(kPhaseRecordBytes, Placement::local);
  // Recording stops however this ends, so no later op writes into the freed record.
  struct Stop {
    Variant& v;
    ~Stop() { v.record_phases(nullptr); }
  } stop{v};
  v.record_phases(rec.get());
  const std::vector<std::uint64_t> zeros(kPhaseRecordWords, 0);
  std::vector<RecordedOp> recorded;
  bool aligned = true;
  // A sample the start gate discarded (ranks not released together) is tried again, boundedly.
  for (int tries = 0; tries < 3 * ops && static_cast<int>(recorded.size()) < ops; ++tries) {
    for (int r = 0; r < f.world(); ++r)
      if (f.drives(r)) f.upload(r, rec->local(r), zeros.data(), kPhaseRecordBytes);
    if (cold_cache) f.flush_caches();
    const IsolatedTimes t = f.time_isolated(op, 1);
    if (t.samples.empty()) continue;
    recorded.push_back({read_records(f, *rec, aligned), t.samples.front() * 1e6});
  }
  if (recorded.empty())
    throw CaseError("phase timeline: the start gate discarded all " + std::to_string(3 * ops) + " recorded ops");
  PhaseTimeline tl = build_timeline(marks, recorded);
  tl.clock = f.phase_clock();
  tl.resolution_ns = f.phase_clock_resolution_ns();
  tl.clocks_aligned = aligned;
  return tl;
}

}  // namespace arbench
