#include "run/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace arbench {

Progress::Progress(std::ostream& out, bool enabled, std::size_t total, int width)
    : out_(out), enabled_(enabled && total > 0), total_(total), width_(width < 20 ? 20 : width) {}

Progress::~Progress() { end(); }

std::string Progress::duration_text(double s) {
  const long t = s < 0 ? 0 : static_cast<long>(s + 0.5);
  char b[32];
  if (t < 60)
    std::snprintf(b, sizeof b, "%lds", t);
  else if (t < 3600)
    std::snprintf(b, sizeof b, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(b, sizeof b, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  return b;
}

void Progress::begin(const std::string& case_name) {
  ++started_;
  case_t0_ = std::chrono::steady_clock::now();
  if (!enabled_) return;
  // ETA: the mean time of the cases finished so far times the cases left (this one included).
  const std::string eta =
      finished_ == 0 ? "ETA ..." : "ETA " + duration_text(done_s_ / double(finished_) * double(total_ - finished_));
  const std::string head = "[" + std::to_string(started_) + "/" + std::to_string(total_) + "] ";
  const std::string tail = "... " + eta;
  std::string name = case_name;
  const long room = long(width_) - 1 - long(head.size()) - long(tail.size());
  if (long(name.size()) > room) name = name.substr(0, std::size_t(room > 0 ? room : 0));
  out_ << "\r\033[K" << head << name << tail << std::flush;
  drawn_ = true;
}

void Progress::end() {
  if (started_ > finished_) {
    ++finished_;
    done_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - case_t0_).count();
  }
  if (!drawn_) return;
  out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

bool stderr_is_terminal(int& columns) {
  columns = 80;
  if (!::isatty(STDERR_FILENO)) return false;
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns = ws.ws_col;
  return true;
}

}  // namespace arbench
