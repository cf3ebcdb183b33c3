// The posted-write collapse probe's host half: the patterns it runs (every pair alone, writing and
// reading; then N-1 rounds in which every GPU sends one flow and receives one), how results map
// back to the figures, and the verdict from fixed figures: the published collapse (writes 52 -> 7
// GB/s per pair while reads hold) is "pull beats push"; both collapsing, reads collapsing, and a
// healthy box are told apart.
#include <gtest/gtest.h>

#include <set>

#include "doctor/checks.hpp"
#include "doctor/collapse.hpp"
#include "doctor_checks.hpp"

namespace arbench::doctor {
namespace {

std::vector<std::vector<int>> all_ok(int n) {
  std::vector<std::vector<int>> ok(std::size_t(n), std::vector<int>(std::size_t(n), 1));
  for (int i = 0; i < n; ++i) ok[std::size_t(i)][std::size_t(i)] = 0;
  return ok;
}

// Figures where every pair writes `wa` alone and `wl` at once, and reads `ra` / `rl`.
CollapseFigures figures(int n, double wa, double wl, double ra, double rl) {
  const auto ok = all_ok(n);
  const auto patterns = collapse_patterns(ok);
  std::vector<topo::PatternResult> results;
  for (const auto& p : patterns) {
    topo::PatternResult r{p.name, {}, std::nullopt};
    const bool alone = p.name.rfind("alone", 0) == 0;
    for (const auto& f : p.flows) r.gbps.push_back(f.pull ? (alone ? ra : rl) : (alone ? wa : wl));
    results.push_back(r);
  }
  return collapse_figures(ok, patterns, results, 16 << 20, 3);
}

TEST(DoctorCollapse, PatternsCoverEveryPairAloneAndOnceUnderLoad) {
  const auto p = collapse_patterns(all_ok(4));
  ASSERT_EQ(p.size(), 4u * 3 * 2 + 3 * 2);  // 12 ordered pairs x {write, read}, then 3 + 3 rounds
  EXPECT_EQ(p.front().name, "alone write 0->1");
  EXPECT_EQ(p.front().flows.size(), 1u);
  std::set<std::pair<int, int>> loaded_writes;
  for (const auto& pat : p) {
    if (pat.name.rfind("round write", 0) != 0) continue;
    EXPECT_EQ(pat.flows.size(), 4u) << pat.name;  // every GPU sends one flow...
    std::set<int> senders, receivers;
    for (const auto& f : pat.flows) {
      EXPECT_FALSE(f.pull);
      senders.insert(f.from);
      receivers.insert(f.to);
      loaded_writes.insert({f.from, f.to});
    }
    EXPECT_EQ(senders.size(), 4u) << pat.name;
    EXPECT_EQ(receivers.size(), 4u) << pat.name;  // ...and receives one
  }
  EXPECT_EQ(loaded_writes.size(), 12u);  // every ordered pair once under load
}

TEST(DoctorCollapse, PairsWithoutWorkingP2pAreLeftOutAndSaid) {
  auto ok = all_ok(3);
  ok[0][2] = 0;  // 0 cannot reach 2: the pair is left out both ways
  const auto p = collapse_patterns(ok);
  for (const auto& pat : p)
    for (const auto& f : pat.flows) EXPECT_FALSE((f.from == 0 && f.to == 2) || (f.from == 2 && f.to == 0)) << pat.name;
  const CollapseFigures f = collapse_figures(ok, p, {}, 1, 1);
  EXPECT_EQ(f.notes.size(), 2u);
  EXPECT_TRUE(has(f.notes.front(), "GPU0->GPU2: no working P2P both ways")) << f.notes.front();
}

TEST(DoctorCollapse, PublishedCollapseMeansPullBeatsPush) {
  const CollapseVerdict v = judge_collapse(figures(8, 52, 7, 52, 50));
  EXPECT_EQ(v.verdict, Verdict::slows);
  EXPECT_TRUE(v.pull_beats_push);
  EXPECT_EQ(v.pairs, 56);
  EXPECT_NEAR(*v.write_ratio, 7.0 / 52, 1e-9);
  EXPECT_NEAR(*v.read_ratio, 50.0 / 52, 1e-9);
  EXPECT_TRUE(has(v.summary, "writes keep 13% of their speed alone and reads 96%")) << v.summary;
  EXPECT_TRUE(has(v.summary, "52.0 -> 7.0 GB/s")) << v.summary;
  EXPECT_TRUE(has(v.summary, "pull beats push on this box")) << v.summary;
  // The second published box: 37 -> 2.7 GB/s.
  EXPECT_TRUE(judge_collapse(figures(8, 37, 2.7, 37, 36)).pull_beats_push);
}

TEST(DoctorCollapse, OtherShapesAreToldApart) {
  const CollapseVerdict both = judge_collapse(figures(4, 52, 7, 52, 8));
  EXPECT_EQ(both.verdict, Verdict::slows);
  EXPECT_FALSE(both.pull_beats_push);
  EXPECT_TRUE(has(both.summary, "both collapse")) << both.summary;
  const CollapseVerdict reads = judge_collapse(figures(4, 52, 50, 52, 7));
  EXPECT_FALSE(reads.pull_beats_push);
  EXPECT_TRUE(has(reads.summary, "push beats pull")) << reads.summary;
  const CollapseVerdict healthy = judge_collapse(figures(4, 52, 48, 52, 49));
  EXPECT_EQ(healthy.verdict, Verdict::ok);
  EXPECT_FALSE(healthy.pull_beats_push);
  // Writes halve but do not collapse, reads hold: not enough to prefer pull.
  EXPECT_FALSE(judge_collapse(figures(4, 52, 30, 52, 50)).pull_beats_push);
}

TEST(DoctorCollapse, NothingMeasuredIsUnknownAndTheCheckSaysWhy) {
  CollapseFigures f = figures(2, 52, 7, 52, 50);
  f.read_loaded = Matrix(2, std::vector<std::optional<double>>(2));  // the read rounds were skipped
  EXPECT_EQ(judge_collapse(f).verdict, Verdict::unknown);
  Inputs in;
  in.probe_skipped = "--no-probe";
  const Check skipped = check_collapse(in);
  EXPECT_EQ(skipped.verdict(), Verdict::unknown);
  EXPECT_EQ(skipped.items.front().read, "not run: --no-probe");
  in.probe = figures(4, 52, 7, 52, 50);
  const Check found = check_collapse(in);
  EXPECT_EQ(found.verdict(), Verdict::slows) << dump(found);
  EXPECT_EQ(found.data["pull_beats_push"], true);
  EXPECT_TRUE(has(found.items.front().fix, "arbench run --doctor FILE")) << dump(found);
}

}  // namespace
}  // namespace arbench::doctor
