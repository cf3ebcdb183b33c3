// Watchdog: the last resort for a blocking call with no bound of its own. NCCL's communicator
// creation waits for every process of the run; a process that never comes would leave the others
// inside it forever, where no World bound can reach them. If the call has not returned after
// `bound_s`, the process says what it waited for and exits (exit 1), and the launcher (mpirun,
// srun) then ends the other processes, as after MPI_Abort.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "arbench/core/errors.hpp"

namespace arbench {

class Watchdog {
 public:
  Watchdog(double bound_s, std::string what) : what_(std::move(what)) {
    thread_ = std::thread([this, bound_s] {
      std::unique_lock lk(mu_);
      if (cv_.wait_for(lk, std::chrono::duration<double>(bound_s), [this] { return done_; })) return;
      std::fprintf(stderr, "arbench: %s did not finish within %.0f s: a process of the run is missing or stuck. "
                   "Ending this process.\n", what_.c_str(), bound_s);
      std::fflush(nullptr);
      std::_Exit(kExitFailure);
    });
  }
  ~Watchdog() {
    {
      std::lock_guard lk(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::string what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace arbench
