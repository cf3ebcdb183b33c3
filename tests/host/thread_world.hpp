// ThreadWorlds: a World of N "processes" that are threads of this process, for testing
// collective code (the descriptor exchange, the cuda provider's multi-process mapping) on CPUs
// without mpirun. Collectives rendezvous on a shared slot table; every wait is bounded (a missing
// rank throws instead of hanging the test). tests/mpi runs the same code across real processes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "arbench/world.hpp"

namespace arbench::testing {

class ThreadWorlds {
 public:
  explicit ThreadWorlds(int n, double bound_s = 30) : n_(n), bound_s_(bound_s), slots_(std::size_t(n)) {
    for (int r = 0; r < n; ++r) worlds_.push_back(std::make_unique<One>(*this, r));
  }
  World& at(int rank) { return *worlds_.at(std::size_t(rank)); }

  // Runs fn(world, rank) on n threads; rethrows the lowest rank's exception, if any.
  void run(const std::function<void(World&, int)>& fn) {
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n_));
    std::vector<std::thread> threads;
    for (int r = 0; r < n_; ++r)
      threads.emplace_back([&, r] {
        try {
          fn(at(r), r);
        } catch (...) {
          errors[std::size_t(r)] = std::current_exception();
        }
      });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  // Every rank's `mine`, once all n gave theirs.
  std::vector<std::string> gather(int rank, const std::string& mine, const char* what) {
    std::unique_lock<std::mutex> lock(m_);
    const long gen = generation_;
    slots_[std::size_t(rank)] = mine;
    if (++arrived_ == n_) {
      result_ = slots_;
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return result_;
    }
    if (!cv_.wait_for(lock, std::chrono::duration<double>(bound_s_), [&] { return generation_ != gen; }))
      throw std::runtime_error(std::string("thread world: rank ") + std::to_string(rank) + " waited in vain: " + what);
    return result_;
  }

  class One final : public World {
   public:
    One(ThreadWorlds& all, int rank) : all_(all), rank_(rank) {
      for (int r = 0; r < all.n_; ++r) {
        layout_.hosts.push_back("node0");
        layout_.node_of.push_back(0);
      }
      layout_.local_rank = rank;
      layout_.local_size = all.n_;
      layout_.launcher = "mpirun";
    }
    int rank() const override { return rank_; }
    int size() const override { return all_.n_; }
    const WorldLayout& layout() const override { return layout_; }
    double wait_bound_s() const override { return all_.bound_s_; }
    void set_wait_bound_s(double) override {}
    void barrier(const char* what) override { (void)all_.gather(rank_, {}, what); }
    void max(std::vector<double>& v, const char* what) override {
      std::string mine(v.size() * sizeof(double), '\0');
      if (!v.empty()) std::memcpy(mine.data(), v.data(), mine.size());
      for (const std::string& other : all_.gather(rank_, mine, what))
        for (std::size_t i = 0; i < v.size() && (i + 1) * sizeof(double) <= other.size(); ++i) {
          double x = 0;
          std::memcpy(&x, other.data() + i * sizeof(double), sizeof x);
          if (x > v[i]) v[i] = x;
        }
    }
    std::vector<std::string> all_gather(const std::string& mine, const char* what) override {
      return all_.gather(rank_, mine, what);
    }
    void broadcast(std::string& bytes, int root, const char* what) override {
      bytes = all_.gather(rank_, bytes, what).at(std::size_t(root));
    }
    [[noreturn]] void abort(int, const std::string& why) override { throw std::logic_error("abort: " + why); }

   private:
    ThreadWorlds& all_;
    int rank_;
    WorldLayout layout_;
  };

  int n_;
  double bound_s_;
  std::mutex m_;
  std::condition_variable cv_;
  int arrived_ = 0;
  long generation_ = 0;
  std::vector<std::string> slots_, result_;
  std::vector<std::unique_ptr<One>> worlds_;
};

}  // namespace arbench::testing
