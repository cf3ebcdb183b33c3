// Progress (bench/run/progress/progress.hpp): on a terminal the `[k/N] case... ETA` line, drawn per case,
// erased before the case's row, cut to the terminal's width; without one, whole log lines at
// least every 30 s and at each family's end. The ETA (progress_eta.hpp) on a known sweep, with a
// fake clock: within 2x of the truth where a running mean was 4-10x too low.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <utility>
#include <sstream>

#include "run/progress/progress.hpp"
#include "tests/host/text_checks.hpp"

using namespace arbench;
using arbench::test::lines_of;

namespace {

std::vector<PlannedCase> plan_of(std::size_t n, const std::string& family = "allreduce") {
  std::vector<PlannedCase> p;
  for (std::size_t i = 0; i < n; ++i) p.push_back({"case" + std::to_string(i), family, 1024u << i, 2, 20});
  return p;
}

}  // namespace

TEST(Progress, DrawsAndErasesOneLinePerCase) {
  std::ostringstream out;
  double now = 0;
  {
    Progress p(out, ProgressMode::terminal, plan_of(3), 120, 30, [&] { return now; });
    p.begin("allreduce/ring/bf16/gpus:2/bytes:1024");
    EXPECT_NE(out.str().find("[1/3] allreduce/ring/bf16/gpus:2/bytes:1024... ETA ..."), std::string::npos) << out.str();
    now += 1;
    p.end();
    EXPECT_EQ(out.str().substr(out.str().size() - 4), "\r\033[K");  // erased before the row is printed
    p.begin("allreduce/ring/bf16/gpus:2/bytes:2048");
    EXPECT_NE(out.str().find("[2/3] allreduce/ring/bf16/gpus:2/bytes:2048... ETA "), std::string::npos) << out.str();
    p.end();
  }
  EXPECT_EQ(out.str().find('\n'), std::string::npos);  // never scrolls
}

TEST(Progress, SilentWhenOff) {
  std::ostringstream out;
  Progress p(out, ProgressMode::off, plan_of(3));
  p.begin("allreduce/ring/bf16/gpus:2/bytes:1024");
  p.tick();
  p.end();
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, CutToTheTerminalWidth) {
  std::ostringstream out;
  Progress p(out, ProgressMode::terminal, plan_of(200), 40);
  p.begin(std::string(100, 'n'));
  const std::string line = out.str().substr(out.str().rfind('\r') + 4);  // after "\r\033[K"
  EXPECT_LE(line.size(), 39u) << line;
  EXPECT_NE(line.find("[1/200] nnn"), std::string::npos) << line;
  EXPECT_NE(line.find("... ETA"), std::string::npos) << line;
}

// Without a terminal: a line at least every 30 s (fake clock, ticked every second as the run's
// ticker does), inside one long case too, and one at each family's end; never over 120 columns.
TEST(Progress, LogLinesEveryThirtySecondsAndAtEachFamilyEnd) {
  std::ostringstream out;
  double now = 0;
  std::vector<PlannedCase> plan = plan_of(4, "allreduce");
  for (auto& c : plan_of(3, "allreduce_rmsnorm")) plan.push_back(c);
  plan[2].name = std::string(200, 'x');  // a name longer than a line
  const double durations[] = {5, 12, 95, 3, 40, 1, 61};  // case 2 alone spans three intervals
  std::vector<double> printed_at;
  {
    Progress p(out, ProgressMode::log, plan, 120, 30, [&] { return now; });
    for (std::size_t i = 0; i < plan.size(); ++i) {
      p.begin(plan[i].name);
      for (double t = 0; t < durations[i]; t += 1) {
        now += 1;
        const std::size_t before = out.str().size();
        p.tick();
        if (out.str().size() != before) printed_at.push_back(now);
      }
      const std::size_t before = out.str().size();
      p.end();
      if (out.str().size() != before) printed_at.push_back(now);
    }
  }
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), printed_at.size()) << out.str();
  double last = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(printed_at[i] - last, 30.0) << out.str();
    last = printed_at[i];
    EXPECT_LE(lines[i].size(), 120u) << lines[i];
    EXPECT_EQ(lines[i].rfind("arbench: progress ", 0), 0u) << lines[i];
    EXPECT_NE(lines[i].find(" ETA "), std::string::npos) << lines[i];
  }
  EXPECT_NE(out.str().find("arbench: progress 4/7 cases (57%), 1m55s elapsed, ETA "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("; family allreduce done"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("arbench: progress 7/7 cases (100%), 3m37s elapsed, ETA 0s; family allreduce_rmsnorm done"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("; running xxxx"), std::string::npos) << out.str();  // inside the long case
  EXPECT_EQ(out.str().find('\r'), std::string::npos);  // whole lines only
}

// A known sweep (sizes 1K..256M doubling, 2/4/8 ranks, three variants, smallest first) timed by
// truths the model does not share: GPU-like (a fixed setup per case, a floor growing with
// sqrt(N), ring bus traffic 2(N-1)/N) and CPU-like (N threads on 2 cores). At every case's start,
// once three cases have finished, the ETA is within 2x of the time really left. A running mean is
// not (so the check can fail).
TEST(ProgressEta, WithinTwiceTheTruthOnAKnownSweep) {
  const int samples = 50 + 10;
  const auto gpu = [&](double bytes, int n) {
    return 0.02 + samples * (12e-6 * std::sqrt(double(n)) + bytes * 2 * (n - 1) / n / 18e9);
  };
  const auto cpu = [&](double bytes, int n) { return 0.002 + samples * n / 2.0 * (30e-6 + bytes / 2e9); };
  for (const auto& [what, time] : {std::pair<const char*, std::function<double(double, int)>>{"gpu", gpu}, {"cpu", cpu}}) {
    std::vector<PlannedCase> plan;
    std::vector<double> truth;
    for (int world : {2, 4, 8})
      for (const char* variant : {"nccl", "ring", "oneshot-push"})
        for (std::size_t bytes = 1024; bytes <= (256u << 20); bytes *= 2) {
          plan.push_back({std::string(variant), "allreduce", bytes, world, samples});
          truth.push_back(time(double(bytes), world));
        }
    EtaModel model(plan);
    double worst = 1, worst_mean = 1, done = 0;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      double left = 0;
      for (std::size_t k = i; k < plan.size(); ++k) left += truth[k];
      if (i >= 3) {
        const double eta = model.remaining_s(i, false, 0);
        const double mean = done / double(i) * double(plan.size() - i);
        worst = std::max({worst, eta / left, left / eta});
        worst_mean = std::max({worst_mean, mean / left, left / mean});
      }
      model.finished(i, truth[i]);
      done += truth[i];
    }
    EXPECT_LE(worst, 2.0) << what;
    EXPECT_GT(worst_mean, 4.0) << what;  // the sweep is one a running mean gets wrong
  }
}

TEST(ProgressEta, UnknownUntilACaseFinished) {
  EtaModel model(plan_of(3));
  EXPECT_LT(model.remaining_s(0, false, 0), 0);
  model.finished(0, 2.0);
  EXPECT_GT(model.remaining_s(1, false, 0), 0);
  // a case still running counts what it has left, never less than nothing
  EXPECT_GE(model.remaining_s(1, true, 1e9), model.remaining_s(1, false, 0));
}

TEST(Progress, DurationText) {
  EXPECT_EQ(Progress::duration_text(0.2), "0s");
  EXPECT_EQ(Progress::duration_text(45), "45s");
  EXPECT_EQ(Progress::duration_text(65), "1m05s");
  EXPECT_EQ(Progress::duration_text(7380), "2h03m");
}
