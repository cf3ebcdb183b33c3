#include "run/run_stop.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <exception>
#include <iostream>

namespace arbench {
namespace {

std::atomic<int> g_sigints{0};
std::atomic<int> g_wake_fd{-1};  // where a second Ctrl-C wakes the writer; -1: none

void say(const char* msg, std::size_t n) { (void)!::write(STDERR_FILENO, msg, n); }

extern "C" void on_sigint(int) {
  const int before = g_sigints.fetch_add(1);
  if (before == 0) {
    static const char msg[] = "\narbench: interrupted: stopping after the current case (Ctrl-C again to quit now)\n";
    say(msg, sizeof msg - 1);
    return;
  }
  const int fd = g_wake_fd.load();
  if (before == 1 && fd >= 0) {
    static const char msg[] = "\narbench: interrupted twice: writing the finished cases, then exiting\n";
    say(msg, sizeof msg - 1);
    (void)!::write(fd, "x", 1);  // async-signal-safe; the writer thread does the rest
    return;
  }
  static const char msg[] = "\narbench: interrupted again: exiting now, nothing written\n";
  say(msg, sizeof msg - 1);
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

RunStop::~RunStop() {
  sigaction(SIGINT, &previous_, nullptr);
  g_wake_fd = -1;
  if (watcher_.joinable()) {
    ::close(wake_[1]);  // the watcher reads end-of-file and returns
    watcher_.join();
    ::close(wake_[0]);
  }
}

void RunStop::on_second_interrupt(std::function<void()> write_finished) {
  if (watcher_.joinable() || ::pipe(wake_) != 0) return;
  watcher_ = std::thread([fd = wake_[0], write = std::move(write_finished)] {
    char byte = 0;
    ssize_t n;
    do n = ::read(fd, &byte, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) return;  // closed: the run ended normally
    try {
      write();
    } catch (const std::exception& e) {
      std::cerr << "arbench: could not write the finished cases: " << e.what() << "\n";
    }
    std::cout.flush();
    ::_exit(kExitInterrupted);
  });
  g_wake_fd = wake_[1];
}

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
