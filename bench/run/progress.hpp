// Progress: the live `[k/N] case... ETA` line a long sweep shows on a terminal (stderr, so it
// never mixes into a table or a pipe). Each case's line is drawn when it starts and erased when
// it ends, before its row is printed. Disabled (prints nothing) when stderr is not a terminal.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace arbench {

class Progress {
 public:
  // `width`: the terminal's columns (the line is cut to fit, so it never wraps).
  Progress(std::ostream& out, bool enabled, std::size_t total, int width = 120);
  ~Progress();
  void begin(const std::string& case_name);  // draws "[k/N] name... ETA 1m05s"
  void end();                                // erases the line
  // "45s", "1m05s", "2h03m".
  static std::string duration_text(double seconds);

 private:
  std::ostream& out_;
  bool enabled_;
  std::size_t total_, started_ = 0, finished_ = 0;
  int width_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point case_t0_;
  double done_s_ = 0;  // time spent in finished cases
};

// True when stderr is a terminal; its width in `columns` (80 when unknown).
bool stderr_is_terminal(int& columns);

}  // namespace arbench
