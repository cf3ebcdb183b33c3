#include "kernels/thread_team.hpp"

#include <cstdlib>

namespace arbench {

ThreadTeam::ThreadTeam(int n, const std::function<void(int)>& init) {
  threads_.reserve(static_cast<std::size_t>(n));
  // `init` is copied into each thread: the caller's may be gone before a thread starts.
  for (int i = 0; i < n; ++i) threads_.emplace_back([this, i, init] { thread_main(i, init); });
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadTeam::thread_main(int i, const std::function<void(int)>& init) {
  if (init) init(i);
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock lk(mu_);
      start_.wait(lk, [&] { return stopping_ || jobs_ != seen; });
      if (stopping_) return;
      seen = jobs_;
      job = job_;
    }
    std::exception_ptr err;
    try {
      (*job)(i);
    } catch (...) {
      err = std::current_exception();
    }
    std::lock_guard lk(mu_);
    if (err && !first_error_) first_error_ = err;
    if (--running_ == 0) done_.notify_one();
  }
}

void ThreadTeam::run(const std::function<void(int)>& job, std::chrono::duration<double> bound,
                     const std::function<void(int)>& on_stuck) {
  std::unique_lock lk(mu_);
  job_ = &job;
  first_error_ = nullptr;
  running_ = size();
  ++jobs_;
  start_.notify_all();
  if (!done_.wait_for(lk, bound, [&] { return running_ == 0; })) {
    on_stuck(running_);
    std::abort();  // on_stuck must not return: the jobs still use `job`
  }
  job_ = nullptr;
  if (first_error_) std::rethrow_exception(first_error_);
}

}  // namespace arbench
