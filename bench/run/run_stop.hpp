// RunStop: why a run ends before its last case, and Ctrl-C handling while it runs.
// The first SIGINT asks the run to stop after the case in progress (the finished cases are
// still reported and written, marked incomplete); a second one exits at once with 130, the
// shell's code for "killed by SIGINT". Anything else that must end the run early (a device
// error that leaves the GPU unusable) calls request() with its reason and exit code.
#pragma once

#include <csignal>
#include <string>

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

 private:
  struct sigaction previous_ {};
  std::string reason_;
  int exit_code_ = 0;
};

}  // namespace arbench
