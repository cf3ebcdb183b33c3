// RunStop: why a run ends before its last case, and Ctrl-C handling while it runs.
// The first SIGINT asks the run to stop after the case in progress (the finished cases are
// still reported and written, marked incomplete); a second one does not wait for that case: the
// finished cases are written at once (on_second_interrupt) and the process exits with 130, the
// shell's code for "killed by SIGINT"; a third exits without writing. Anything else that must end
// the run early (a device error that leaves the GPU unusable) calls request() with its reason and
// exit code.
#pragma once

#include <csignal>
#include <functional>
#include <string>
#include <thread>

namespace arbench {

inline constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

class RunStop {
 public:
  RunStop();   // installs the SIGINT handler (one RunStop at a time)
  ~RunStop();  // restores the previous handler
  RunStop(const RunStop&) = delete;
  RunStop& operator=(const RunStop&) = delete;

  // Stop after the current case; the first request wins.
  void request(std::string reason, int exit_code);
  bool requested() const;
  std::string reason() const;  // empty while not requested
  int exit_code() const;       // kExitInterrupted after Ctrl-C

  // What a second Ctrl-C does before the process exits with 130: `write_finished` runs on a
  // thread of its own (the signal handler only wakes it) while the case in progress may still
  // run, so it takes its own locks. Without it a second Ctrl-C exits without writing.
  void on_second_interrupt(std::function<void()> write_finished);

 private:
  struct sigaction previous_ {};
  int wake_[2] = {-1, -1};  // the handler writes one byte to wake_[1]
  std::thread watcher_;
  std::string reason_;
  int exit_code_ = 0;
};

}  // namespace arbench
