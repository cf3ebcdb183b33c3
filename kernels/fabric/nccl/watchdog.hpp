// Watchdog: the bound of the blocking NCCL calls that have none of their own (host code only, so
// it is tested without NCCL: tests/host/fabric/test_watchdog.cpp).
//
// NCCL's setup waits for every rank inside a call: creating the communicators (ncclCommInit*),
// the grouped device-communicator and window setup (inside ncclGroupEnd) and the connection setup
// of the first collective of an algorithm (inside that op's ncclGroupEnd). A rank that never
// comes — a process that died, a GPU pair whose peer-to-peer writes never arrive — would leave the
// others there for ever, where no kernel bound or World bound reaches. Every such call runs
// through guard(): if it has not returned after its bound, the watchdog says which step hung, has
// the process write the cases that finished (arbench/last_words.hpp: marked incomplete, with this
// reason), then aborts the communicators (ncclCommAbort, on a thread of its own and itself
// bounded: it may wait on the stuck thread, or crash), and ends the process with exit 1. Under mpirun the
// launcher then ends the other processes. The process is not resumed: a thread stuck inside
// NCCL cannot be brought back safely.
//
// One thread per watchdog waits for the armed deadline, so guarding a call costs a lock and a
// notify (the op groups of every timed sample go through it).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include "arbench/core/errors.hpp"
#include "arbench/last_words.hpp"

namespace arbench {

// How long an NCCL setup step may take: generous (creating 8 communicators takes seconds, a first
// connection setup as long), never unbounded.
inline double nccl_setup_bound_s(double timeout_s) { return std::max(60.0, 4 * timeout_s + 30.0); }

class Watchdog {
 public:
  using Abort = std::function<void()>;
  using Exit = std::function<void(int code)>;
  // `abort`: stops what a guarded call waits for (ncclCommAbort on the communicators that exist
  // then); `grace_s`: how long the abort may take before the process ends anyway; `exit`: ends
  // the process (tests pass one that records instead).
  explicit Watchdog(Abort abort = {}, double grace_s = 10.0, Exit exit = default_exit)
      : abort_(std::move(abort)), exit_(std::move(exit)), grace_s_(grace_s) {
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard lk(mu_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Runs call() with `bound_s`; `what` names the step in the message. Returns what call()
  // returns. Throws HangError when call() returns after the watchdog fired (only where the exit
  // it was given returns, i.e. in tests).
  template <class F>
  decltype(auto) guard(const std::string& what, double bound_s, F&& call) {
    arm(what, bound_s);
    struct Disarm {
      Watchdog* w;
      ~Disarm() { w->disarm(); }
    } disarm{this};
    if constexpr (std::is_void_v<decltype(call())>) {
      call();
      throw_if_fired();
    } else {
      decltype(auto) r = call();
      throw_if_fired();
      return r;
    }
  }
  // Replaces what abort does (the communicators a fabric holds change when it re-creates them).
  void set_abort(Abort abort) {
    std::lock_guard lk(mu_);
    abort_ = std::move(abort);
  }
  bool fired() const {
    std::lock_guard lk(mu_);
    return fired_;
  }

  static void default_exit(int code) {
    std::fflush(nullptr);
    std::_Exit(code);
  }

 private:
  void arm(const std::string& what, double bound_s) {
    {
      std::lock_guard lk(mu_);
      what_ = what;
      bound_s_ = bound_s;
      deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                           std::chrono::duration<double>(bound_s));
      armed_ = true;
      ++generation_;
    }
    cv_.notify_all();
  }
  void disarm() {
    {
      std::lock_guard lk(mu_);
      armed_ = false;
    }
    cv_.notify_all();
  }
  // The guarded call can return as soon as the abort lands, before the watchdog thread has
  // ended the process (or, in tests, recorded the exit): wait for it, bounded by the abort's
  // grace plus 5 s for writing the finished cases.
  void throw_if_fired() {
    std::unique_lock lk(mu_);
    if (fired_)
      cv_.wait_for(lk, std::chrono::duration<double>(grace_s_ + 5.0), [this] { return handled_ || quit_; });
    if (fired_) throw HangError(what_ + " did not finish within " + seconds(bound_s_) + "; its communicators were aborted");
  }
  static std::string seconds(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g s", s);
    return b;
  }

  void watch() {
    std::unique_lock lk(mu_);
    for (;;) {
      cv_.wait(lk, [this] { return quit_ || armed_; });
      if (quit_) return;
      const auto gen = generation_;
      if (cv_.wait_until(lk, deadline_, [this, gen] { return quit_ || !armed_ || generation_ != gen; })) continue;
      fired_ = true;
      const std::string why = what_ + " did not finish within " + seconds(bound_s_) +
                              " (a process of the run missing or stuck, or peer-to-peer writes that never arrive: "
                              "docs/troubleshooting.md)";
      Abort abort = abort_;
      lk.unlock();
      std::fprintf(stderr, "arbench: %s. Writing the finished cases, then aborting the NCCL communicators and ending "
                   "this process.\n", why.c_str());
      std::fflush(stderr);
      // Record first: during a blocking init NCCL hands out the communicator before the init has
      // finished, so the abort can race the init thread; if that crashes the process, the
      // finished cases must already be on disk.
      say_last_words("NCCL setup hung: " + why);
      if (abort) {  // bounded: ncclCommAbort may itself wait for the stuck thread
        auto done = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
        auto finished = std::make_shared<bool>(false);
        std::thread([abort, done, finished] {
          abort();
          std::lock_guard g(done->first);
          *finished = true;
          done->second.notify_all();
        }).detach();
        std::unique_lock g(done->first);
        done->second.wait_for(g, std::chrono::duration<double>(grace_s_), [&] { return *finished; });
      }
      exit_(kExitFailure);
      lk.lock();  // only reached where exit_ returns (tests)
      armed_ = false;
      handled_ = true;
      cv_.notify_all();
    }
  }

  Abort abort_;
  Exit exit_;
  double grace_s_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string what_;
  double bound_s_ = 0;
  std::chrono::steady_clock::time_point deadline_{};
  bool armed_ = false, fired_ = false, handled_ = false, quit_ = false;
  unsigned long generation_ = 0;
  std::thread thread_;
};

}  // namespace arbench
