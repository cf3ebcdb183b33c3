#include "results/phase_timeline.hpp"

#include <algorithm>
#include <cstdio>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

// Block b's row of mark times in a record, with unrecorded marks (0) taking the time of the mark
// before (`missing` counts them) and, before the first recorded one, its time (a block that ran
// only the second of two kernels: the unfused pairs' norm). Empty when the block recorded nothing.
std::vector<std::uint64_t> block_row(const std::vector<std::uint64_t>& rec, int b, std::size_t marks, int* missing) {
  const auto* row = rec.data() + static_cast<std::size_t>(b) * kMaxPhaseMarks;
  std::size_t first = 0;
  while (first < marks && row[first] == 0) ++first;
  if (first == marks) return {};
  if (missing) *missing += static_cast<int>(first);
  std::vector<std::uint64_t> out(row, row + marks);
  for (std::size_t m = 0; m < first; ++m) out[m] = row[first];
  for (std::size_t m = first + 1; m < marks; ++m)
    if (out[m] == 0) {
      out[m] = out[m - 1];
      if (missing) ++*missing;
    }
  return out;
}

// b - a in µs, signed (clocks of different GPUs may disagree a little).
double us_between(std::uint64_t a, std::uint64_t b) { return 1e-3 * static_cast<double>(static_cast<std::int64_t>(b - a)); }

// One recorded op, worked out (see the header for the definitions).
struct OpTimes {
  std::uint64_t t0 = 0;
  std::vector<std::vector<std::uint64_t>> rank_marks;  // per rank: block 0's marks, exit = slowest block's
  std::vector<std::vector<std::uint64_t>> slowest;     // per rank: the slowest block's marks
  std::vector<int> slowest_block;
  std::vector<std::uint64_t> last;  // T[m]: when the last rank reached mark m
  int missing = 0;
  double span_us() const { return us_between(t0, last.back()); }
  double after_last_us() const { return us_between(last.front(), last.back()); }
};

OpTimes work_out(const std::vector<PhaseMark>& marks, const RecordedOp& op) {
  const std::size_t m = marks.size();
  OpTimes t;
  t.last.assign(m, 0);
  for (std::size_t r = 0; r < op.records.size(); ++r) {
    const auto& rec = op.records[r];
    if (rec.size() != kPhaseRecordWords)
      throw CaseError("phase timeline: rank " + std::to_string(r) + "'s record is missing");
    auto row0 = block_row(rec, 0, m, &t.missing);
    if (row0.empty()) throw CaseError("phase timeline: rank " + std::to_string(r) + " recorded no marks");
    int slow = 0;
    std::vector<std::uint64_t> slow_row = row0;
    for (int b = 1; b < kPhaseBlocks; ++b) {
      auto row = block_row(rec, b, m, nullptr);
      if (!row.empty() && row.back() > slow_row.back()) {
        slow = b;
        slow_row = std::move(row);
      }
    }
    row0.back() = std::max(row0.back(), slow_row.back());
    for (std::size_t i = 0; i < m; ++i) t.last[i] = std::max(t.last[i], row0[i]);
    t.t0 = r == 0 ? row0[0] : std::min(t.t0, row0[0]);
    t.rank_marks.push_back(std::move(row0));
    t.slowest.push_back(std::move(slow_row));
    t.slowest_block.push_back(slow);
  }
  return t;
}

double upper_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::vector<double> us_from(std::uint64_t t0, const std::vector<std::uint64_t>& ns) {
  std::vector<double> out;
  for (std::uint64_t v : ns) out.push_back(us_between(t0, v));
  return out;
}

}  // namespace

PhaseTimeline build_timeline(const std::vector<PhaseMark>& marks, const std::vector<RecordedOp>& ops) {
  if (marks.size() < 2 || marks.size() > static_cast<std::size_t>(kMaxPhaseMarks))
    throw CaseError("phase timeline: a variant must name 2 to " + std::to_string(kMaxPhaseMarks) + " marks, not " +
                    std::to_string(marks.size()));
  if (ops.empty()) throw CaseError("phase timeline: no recorded op");
  PhaseTimeline tl;
  for (const PhaseMark& pm : marks) {
    tl.marks.emplace_back(pm.name);
    tl.buckets.push_back(pm.ends);
  }
  std::vector<OpTimes> times;
  std::vector<double> spans, op_us, after;
  for (const RecordedOp& op : ops) {
    times.push_back(work_out(marks, op));
    spans.push_back(times.back().span_us());
    after.push_back(times.back().after_last_us());
    op_us.push_back(op.op_us);
  }
  tl.ops = static_cast<int>(ops.size());
  tl.latency_us = upper_median(op_us);
  tl.after_last_arrival_us = upper_median(after);

  // The median op by span (upper median, as every median arbench reports).
  std::vector<std::size_t> order(ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return spans[a] < spans[b]; });
  const std::size_t med = order[order.size() / 2];
  const OpTimes& t = times[med];
  tl.missing_marks = t.missing;
  tl.span_us = t.span_us();
  tl.op_us = ops[med].op_us;
  tl.breakdown.entry_skew = us_between(t.t0, t.last[0]);
  for (std::size_t m = 1; m < marks.size(); ++m) {
    const double d = us_between(t.last[m - 1], t.last[m]);
    switch (marks[m].ends) {
      case PhaseBucket::entry:  // a second entry mark: the time before it is entry skew too
        tl.breakdown.entry_skew += d;
        break;
      case PhaseBucket::staging: tl.breakdown.staging += d; break;
      case PhaseBucket::wait: tl.breakdown.wait += d; break;
      case PhaseBucket::reduce: tl.breakdown.reduce += d; break;
      case PhaseBucket::exit: tl.breakdown.exit_skew += d; break;
    }
  }
  for (std::size_t r = 0; r < t.rank_marks.size(); ++r)
    tl.ranks.push_back({static_cast<int>(r), us_from(t.t0, t.rank_marks[r]), t.slowest_block[r],
                        us_from(t.t0, t.slowest[r])});
  return tl;
}

std::string breakdown_text(const PhaseBreakdown& b) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.2f · %.2f · %.2f · %.2f · %.2f us", b.entry_skew, b.staging, b.wait, b.reduce,
                b.exit_skew);
  return buf;
}

}  // namespace arbench
