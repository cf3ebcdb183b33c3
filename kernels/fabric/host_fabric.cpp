#include "kernels/fabric/host_fabric.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

using Clock = std::chrono::steady_clock;

// Host buffers: 256-byte aligned like cudaMalloc, zero-filled. Symmetric ones are plain host
// memory every thread can address, so peer(r, p) is simply rank p's buffer.
class HostBuffers final : public RankBuffers {
 public:
  HostBuffers(int world, std::size_t bytes, bool symmetric) : bytes_(bytes), symmetric_(symmetric) {
    for (int r = 0; r < world; ++r) {
      void* p = ::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{256});
      std::memset(p, 0, std::max<std::size_t>(bytes, 1));
      ptrs_.push_back(p);
    }
  }
  ~HostBuffers() override {
    for (void* p : ptrs_) ::operator delete(p, std::align_val_t{256});
  }
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return symmetric_; }
  void* local(int rank) const override { return ptrs_.at(rank); }
  void* peer(int /*rank*/, int peer) const override {
    if (!symmetric_) throw CaseError("peer() asked of a local (non-symmetric) host buffer");
    return ptrs_.at(peer);
  }

 private:
  std::size_t bytes_;
  bool symmetric_;
  std::vector<void*> ptrs_;
};

// Size of the largest (last-level) CPU cache, from sysfs; 32 MiB when it cannot be read.
std::size_t last_level_cache_bytes() {
  std::size_t best = 0;
  int best_level = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    int level = 0;
    char unit = 0;
    std::size_t size = 0;
    std::FILE* fl = std::fopen((dir + "level").c_str(), "r");
    std::FILE* fs = std::fopen((dir + "size").c_str(), "r");
    const bool ok = fl && fs && std::fscanf(fl, "%d", &level) == 1 && std::fscanf(fs, "%zu%c", &size, &unit) >= 1;
    if (fl) std::fclose(fl);
    if (fs) std::fclose(fs);
    if (!ok) continue;
    if (unit == 'K') size <<= 10;
    if (unit == 'M') size <<= 20;
    if (level > best_level || (level == best_level && size > best)) best = size, best_level = level;
  }
  return best > 0 ? best : std::size_t(32) << 20;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

HostFabric::HostFabric(int world, double timeout_s)
    : world_(world), timeout_s_(timeout_s), start_line_(world) {
  if (world < 1 || world > kMaxRanks)
    throw UsageError("host fabric: " + std::to_string(world) + " ranks asked; 1 to " +
                     std::to_string(kMaxRanks) + " are supported");
  for (int r = 0; r < world; ++r) workers_.emplace_back([this, r] { worker_main(r); });
}

HostFabric::~HostFabric() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

std::string HostFabric::describe() const {
  return std::to_string(world_) + " CPU threads (host backend: CPU timings)";
}

std::unique_ptr<RankBuffers> HostFabric::alloc(std::size_t bytes, Placement placement) {
  return std::make_unique<HostBuffers>(world_, bytes, placement == Placement::symmetric);
}

void HostFabric::upload(int, void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }
void HostFabric::download(int, void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }

void HostFabric::worker_main(int rank) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
    }
    std::exception_ptr err;
    try {
      (*job)(rank);
    } catch (...) {
      err = std::current_exception();
    }
    {
      std::lock_guard lk(mu_);
      if (err && !first_error_) first_error_ = err;
      ++done_;
    }
    cv_.notify_all();
  }
}

void HostFabric::run_on_workers(const std::function<void(int)>& job) {
  std::unique_lock lk(mu_);
  job_ = &job;
  done_ = 0;
  first_error_ = nullptr;
  ++generation_;
  cv_.notify_all();
  // Twins bound every wait by timeout_s(); this outer bound only catches a twin that forgot.
  // A stuck CPU thread cannot be cancelled, so the process says why and stops.
  const auto bound = std::chrono::duration<double>(timeout_s_ * 4 + 60.0);
  if (!cv_.wait_for(lk, bound, [&] { return done_ == world_; })) {
    std::fprintf(stderr,
                 "arbench: host fabric: %d of %d ranks still running after %.0f s; a host twin "
                 "is not bounding its waits. Aborting.\n",
                 world_ - done_, world_, bound.count());
    std::_Exit(kExitFailure);
  }
  job_ = nullptr;
  if (first_error_) std::rethrow_exception(first_error_);
}

void HostFabric::keep_in_step(int rounds, const std::function<void(int)>& round) {
  // Every rank passes the start line of every round, even after a failure, so a failing
  // rank never leaves its peers waiting at the barrier; the first error is rethrown at the end.
  std::exception_ptr err;
  for (int i = 0; i < rounds; ++i) {
    start_line_.arrive_and_wait();  // the gate: all ranks start each round together
    if (err) continue;
    try {
      round(i);
    } catch (...) {
      err = std::current_exception();
    }
  }
  if (err) std::rethrow_exception(err);
}

void HostFabric::flush_caches() {
  // Every rank's thread writes its own share, so its private caches and the shared last-level
  // cache both end up holding this buffer instead of the op's inputs.
  if (flush_buffer_.empty()) flush_buffer_.assign(2 * last_level_cache_bytes(), 0);
  const std::size_t share = flush_buffer_.size() / std::size_t(world_);
  run_on_workers([&](int rank) { std::memset(flush_buffer_.data() + share * std::size_t(rank), 0x5a, share); });
}

void HostFabric::run(const RankFn& fn) {
  run_on_workers([&](int rank) { fn(rank, nullptr); });
}

std::vector<double> HostFabric::time_isolated(const RankFn& fn, int samples) {
  std::vector<double> per_rank(static_cast<std::size_t>(samples) * world_, 0.0);
  run_on_workers([&](int rank) {
    keep_in_step(samples, [&](int s) {
      auto t0 = Clock::now();
      fn(rank, nullptr);
      auto t1 = Clock::now();
      per_rank[static_cast<std::size_t>(s) * world_ + rank] = std::chrono::duration<double>(t1 - t0).count();
    });
  });
  std::vector<double> out(samples);
  for (int s = 0; s < samples; ++s) {
    auto first = per_rank.begin() + static_cast<std::ptrdiff_t>(s) * world_;
    out[s] = *std::max_element(first, first + world_);
  }
  return out;
}

double HostFabric::time_pipelined(const RankFn& fn, int ops, int reps) {
  std::vector<double> per_rank(static_cast<std::size_t>(reps) * world_, 0.0);
  run_on_workers([&](int rank) {
    keep_in_step(reps, [&](int r) {
      auto t0 = Clock::now();
      for (int i = 0; i < ops; ++i) fn(rank, nullptr);
      auto t1 = Clock::now();
      per_rank[static_cast<std::size_t>(r) * world_ + rank] = std::chrono::duration<double>(t1 - t0).count();
    });
  });
  std::vector<double> per_rep(reps);
  for (int r = 0; r < reps; ++r) {
    auto first = per_rank.begin() + static_cast<std::ptrdiff_t>(r) * world_;
    per_rep[r] = *std::max_element(first, first + world_) / ops;
  }
  return median_of(per_rep);
}

}  // namespace arbench
