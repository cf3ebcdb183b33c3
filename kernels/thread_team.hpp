// ThreadTeam: n persistent CPU threads that run one job at a time. run(job) calls job(i) on
// thread i for every i, waits until all returned and rethrows the first exception: the caller's
// writes before run() happen before every job's reads, and every job's writes before run()
// returns. The threads are made once and joined by the destructor (they are idle by then). The
// host fabric runs its ranks on one; a block-faithful twin runs a rank's grid on another.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace arbench {

class ThreadTeam {
 public:
  // `init(i)` runs once on thread i, before its first job (thread-local setup).
  explicit ThreadTeam(int n, const std::function<void(int)>& init = {});
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }

  // Runs job(i) on every thread and waits. A job still running after `bound` cannot be
  // cancelled: then on_stuck(still_running) is called, and must not return.
  void run(const std::function<void(int)>& job, std::chrono::duration<double> bound,
           const std::function<void(int)>& on_stuck);

 private:
  void thread_main(int i, const std::function<void(int)>& init);

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* job_ = nullptr;
  std::uint64_t jobs_ = 0;
  int running_ = 0;
  bool stopping_ = false;
  std::exception_ptr first_error_;
};

}  // namespace arbench
