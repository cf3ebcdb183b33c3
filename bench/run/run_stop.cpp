#include "run/run_stop.hpp"

#include <unistd.h>

#include <atomic>

namespace arbench {
namespace {

std::atomic<int> g_sigints{0};

extern "C" void on_sigint(int) {
  if (g_sigints.fetch_add(1) == 0) {
    static const char msg[] = "\narbench: interrupted: stopping after the current case (Ctrl-C again to quit now)\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    return;
  }
  static const char msg[] = "\narbench: interrupted twice: exiting now, nothing written\n";
  (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
  ::_exit(kExitInterrupted);
}

}  // namespace

RunStop::RunStop() {
  g_sigints = 0;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // the case in progress keeps running; its waits are bounded anyway
  sigaction(SIGINT, &sa, &previous_);
}

RunStop::~RunStop() { sigaction(SIGINT, &previous_, nullptr); }

void RunStop::request(std::string reason, int exit_code) {
  if (requested()) return;
  reason_ = std::move(reason);
  exit_code_ = exit_code;
}

bool RunStop::requested() const { return !reason_.empty() || g_sigints.load() > 0; }

std::string RunStop::reason() const {
  if (!reason_.empty()) return reason_;
  return g_sigints.load() > 0 ? "interrupted (Ctrl-C)" : "";
}

int RunStop::exit_code() const { return !reason_.empty() ? exit_code_ : g_sigints.load() > 0 ? kExitInterrupted : 0; }

}  // namespace arbench
