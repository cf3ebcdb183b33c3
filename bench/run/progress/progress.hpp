// Progress: how far a sweep is, on stderr (never mixed into a table or a pipe), in one of two
// forms. On a terminal, the live `[k/N] case... ETA` line: drawn when a case starts, erased when
// it ends, before its row is printed. Without one (cron, CI, a log file), whole lines a log can
// keep: `arbench: progress k/N cases ... ETA ...` at least every `log_every_s` (30 s) while the
// sweep runs and at each family's end. The ETA models each case left (progress_eta.hpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "run/progress/progress_eta.hpp"

namespace arbench {

enum class ProgressMode { off, terminal, log };

class Progress {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic (a fake one in the tests)
  // `width`: the terminal's columns (a line is cut to fit, so it never wraps); 120 in a log.
  Progress(std::ostream& out, ProgressMode mode, std::vector<PlannedCase> plan, int width = 120,
           double log_every_s = 30, Clock clock = {});
  ~Progress();
  void begin(const std::string& case_name);  // the next case of the plan starts
  void end();                                // it ended (terminal: the line is erased)
  // Log form: a line when `log_every_s` passed since the last one (called by ProgressTicker).
  void tick();
  // The ETA in seconds (negative: not known yet, no case finished).
  double eta_s() const;
  // "45s", "1m05s", "2h03m".
  static std::string duration_text(double seconds);

 private:
  double now() const { return clock_(); }
  double eta_locked(double t) const;
  void log_line(double t, const std::string& what);
  std::ostream& out_;
  ProgressMode mode_;
  std::size_t total_, started_ = 0, finished_ = 0;
  int width_;
  double every_s_;
  Clock clock_;
  EtaModel eta_;
  std::vector<std::string> families_;
  std::string running_;  // the case in progress
  bool drawn_ = false;
  double t0_ = 0, case_t0_ = 0, last_line_ = 0;
  mutable std::mutex mu_;  // the ticker's thread and the run's
};

// Calls progress.tick() every second on a thread of its own until destroyed (a log line is then
// printed even while one long case runs).
class ProgressTicker {
 public:
  explicit ProgressTicker(Progress& progress);
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// True when stderr is a terminal; its width in `columns` (80 when unknown).
bool stderr_is_terminal(int& columns);

}  // namespace arbench
