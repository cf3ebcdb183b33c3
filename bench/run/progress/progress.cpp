#include "run/progress/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace arbench {
namespace {
double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

Progress::Progress(std::ostream& out, ProgressMode mode, std::vector<PlannedCase> plan, int width, double log_every_s,
                   Clock clock)
    : out_(out),
      mode_(plan.empty() ? ProgressMode::off : mode),
      total_(plan.size()),
      width_(width < 20 ? 20 : width),
      every_s_(log_every_s),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)),
      eta_(plan) {
  for (const auto& c : plan) families_.push_back(c.family);
  t0_ = last_line_ = now();
}

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

double Progress::eta_locked(double t) const {
  return eta_.remaining_s(started_, started_ > finished_, t - case_t0_);
}

double Progress::eta_s() const {
  std::lock_guard<std::mutex> lock(mu_);
  return eta_locked(now());
}

void Progress::begin(const std::string& case_name) {
  std::lock_guard<std::mutex> lock(mu_);
  ++started_;
  case_t0_ = now();
  running_ = case_name;
  if (mode_ != ProgressMode::terminal) return;
  const double eta = eta_locked(case_t0_);
  const std::string head = "[" + std::to_string(started_) + "/" + std::to_string(total_) + "] ";
  const std::string tail = "... ETA " + (eta < 0 ? std::string("...") : duration_text(eta));
  std::string name = case_name;
  const long room = long(width_) - 1 - long(head.size()) - long(tail.size());
  if (long(name.size()) > room) name = name.substr(0, std::size_t(room > 0 ? room : 0));
  out_ << "\r\033[K" << head << name << tail << std::flush;
  drawn_ = true;
}

void Progress::end() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_ > finished_) {
    const double t = now();
    eta_.finished(finished_, t - case_t0_);
    ++finished_;
    const bool family_done = finished_ <= families_.size() &&
                             (finished_ == families_.size() || families_[finished_] != families_[finished_ - 1]);
    if (mode_ == ProgressMode::log && family_done) log_line(t, "family " + families_[finished_ - 1] + " done");
  }
  if (!drawn_) return;
  out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

void Progress::tick() {
  std::lock_guard<std::mutex> lock(mu_);
  if (mode_ != ProgressMode::log || finished_ == total_) return;
  const double t = now();
  if (t - last_line_ < every_s_) return;
  log_line(t, started_ > finished_ ? "running " + running_ : std::string());
}

// "arbench: progress 12/40 cases (30%), 1m05s elapsed, ETA 3m10s; family allreduce done"
void Progress::log_line(double t, const std::string& what) {
  const double eta = eta_locked(t);
  std::string line = "arbench: progress " + std::to_string(finished_) + "/" + std::to_string(total_) + " cases (" +
                     std::to_string(finished_ * 100 / total_) + "%), " + duration_text(t - t0_) + " elapsed, ETA " +
                     (finished_ == total_ ? std::string("0s") : eta < 0 ? std::string("unknown yet") : duration_text(eta));
  if (!what.empty()) line += "; " + what;
  if (line.size() > std::size_t(width_)) line.resize(std::size_t(width_));
  out_ << line << "\n" << std::flush;
  last_line_ = t;
}

ProgressTicker::ProgressTicker(Progress& progress)
    : thread_([this, &progress] {
        std::unique_lock<std::mutex> lock(mu_);
        while (!cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
          lock.unlock();
          progress.tick();
          lock.lock();
        }
      }) {}

ProgressTicker::~ProgressTicker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool stderr_is_terminal(int& columns) {
  columns = 80;
  if (!::isatty(STDERR_FILENO)) return false;
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) columns = ws.ws_col;
  return true;
}

}  // namespace arbench
