#include "kernels/fabric/host/shm_fabric.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/host/host_op.hpp"

namespace arbench {
namespace {

// The twins' atomics (kernels/mem_host.hpp) and the start line below must work between
// processes: lock-free atomics are address-free, so they do on a shared mapping.
static_assert(std::atomic_ref<std::uint32_t>::is_always_lock_free &&
                  std::atomic_ref<std::uint64_t>::is_always_lock_free,
              "the host twins synchronise processes through shared memory: their atomics must be lock-free");

using Clock = std::chrono::steady_clock;

constexpr std::size_t kAlign = 256;           // like cudaMalloc, and a multiple of every pack
constexpr std::size_t kControlBytes = 4096;   // the start line, before the buffers
constexpr std::size_t kReserveBytes = 64ull << 30;  // address space for the segment (not memory)

std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// The start line in the segment: a counting barrier with a generation, each word on its own
// cache line.
struct StartLine {
  alignas(64) std::uint32_t arrived;
  alignas(64) std::uint32_t generation;
};
static_assert(sizeof(StartLine) <= kControlBytes);

// Waits until all `n` processes arrived; false when they did not within `bound_s` (the caller
// then stops using the line until it is reset).
bool arrive_and_wait(StartLine& line, int n, double bound_s) {
  std::atomic_ref<std::uint32_t> arrived(line.arrived), generation(line.generation);
  const std::uint32_t g = generation.load(std::memory_order_acquire);
  if (arrived.fetch_add(1, std::memory_order_acq_rel) == std::uint32_t(n - 1)) {
    arrived.store(0, std::memory_order_relaxed);
    generation.store(g + 1, std::memory_order_release);
    return true;
  }
  const auto deadline = Clock::now() + std::chrono::duration<double>(bound_s);
  while (generation.load(std::memory_order_acquire) == g) {
    if (Clock::now() > deadline) return false;
    std::this_thread::yield();  // processes may outnumber cores: let the late one run
  }
  return true;
}

}  // namespace

// Every rank's slice of one buffer, side by side in the segment: slice p is rank p's buffer.
class ShmBuffers final : public RankBuffers {
 public:
  ShmBuffers(ShmFabric& f, std::uint8_t* first, std::size_t stride, std::size_t bytes, bool symmetric)
      : f_(f), first_(first), stride_(stride), bytes_(bytes), symmetric_(symmetric) {}
  ~ShmBuffers() override { f_.release(stride_ * std::size_t(f_.world())); }
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return symmetric_; }
  void* local(int rank) const override { return first_ + stride_ * std::size_t(rank); }
  void* peer(int /*rank*/, int peer) const override {
    if (!symmetric_) throw CaseError("peer() asked of a local (non-symmetric) host buffer");
    return local(peer);
  }

 private:
  ShmFabric& f_;
  std::uint8_t* first_;
  std::size_t stride_, bytes_;
  bool symmetric_;
};

ShmFabric::ShmFabric(World& world, double timeout_s)
    : world_(world), timeout_s_(timeout_s), segment_(world, kReserveBytes) {
  if (world.size() > kMaxRanks)
    throw EnvironmentError("host backend: " + std::to_string(world.size()) + " processes; the host twins run 1 to " +
                           std::to_string(kMaxRanks) + " ranks");
  segment_.ensure(kControlBytes);
}

std::string ShmFabric::describe() const {
  return std::to_string(world()) + " processes, one rank each, on " + world_.layout().hosts.at(0) +
         " (host backend: CPU timings; peers through POSIX shared memory)";
}

std::unique_ptr<RankBuffers> ShmFabric::alloc(std::size_t bytes, Placement placement) {
  const std::size_t stride = round_up(std::max<std::size_t>(bytes, 1), kAlign);
  const std::size_t offset = kControlBytes + used_;
  // Collective: every process allocates in the same order, so the offsets agree; and no process
  // reuses space (after the last buffer of a case is released) before every process got here.
  segment_.ensure(offset + stride * std::size_t(world()));
  used_ += stride * std::size_t(world());
  ++live_;
  auto b = std::make_unique<ShmBuffers>(*this, segment_.base() + offset, stride, bytes,
                                        placement == Placement::symmetric);
  std::memset(b->local(world_.rank()), 0, stride);  // own slice only: peers zero theirs
  return b;
}

void ShmFabric::release(std::size_t) {
  if (--live_ == 0) used_ = 0;
}

void ShmFabric::check_drives(int rank, const char* what) const {
  if (!drives(rank))
    throw CaseError(std::string(what) + " of rank " + std::to_string(rank) + " asked of process " +
                    std::to_string(world_.rank()) + ", which drives rank " + std::to_string(world_.rank()) +
                    " only (Fabric::drives)");
}

void ShmFabric::upload(int rank, void* dst, const void* src, std::size_t bytes) {
  check_drives(rank, "upload");
  std::memcpy(dst, src, bytes);
}

void ShmFabric::download(int rank, void* dst, const void* src, std::size_t bytes) {
  check_drives(rank, "download");
  std::memcpy(dst, src, bytes);
}

void ShmFabric::agree(const std::string& failure, const char* what) {
  const std::string agreed = first_failure(world_, failure, what);
  if (agreed.empty()) return;
  // A rank gave up at the start line: nobody is on it now (everyone is here), so reset it.
  if (world_.rank() == 0) {
    auto* line = reinterpret_cast<StartLine*>(segment_.base());
    std::atomic_ref<std::uint32_t>(line->arrived).store(0, std::memory_order_release);
  }
  world_.barrier("resetting the start line");
  throw_agreed(agreed);
}

void ShmFabric::run(const RankOp& op) {
  // Every rank's inputs are in place before any op starts, and no rank changes a buffer a peer
  // may still read before every op has ended: the op is bracketed by the World.
  world_.barrier("starting an op");
  std::exception_ptr error;
  try {
    run_host_op(op, world_.rank());
  } catch (...) {
    error = std::current_exception();
  }
  agree(error_token(error), "ending an op");
}

std::vector<std::pair<double, double>> ShmFabric::keep_in_step(int rounds, const std::function<void()>& round) {
  auto* line = reinterpret_cast<StartLine*>(segment_.base());
  const double bound_s = 2 * timeout_s_ + 1.0;  // longer than any rank's op (each wait <= timeout_s)
  std::vector<std::pair<double, double>> spans(static_cast<std::size_t>(rounds), {0.0, 0.0});
  std::exception_ptr error;
  for (int i = 0; i < rounds; ++i) {
    if (!arrive_and_wait(*line, world(), bound_s))
      throw HangError("process " + std::to_string(world_.rank()) + ": the other processes did not reach the start "
                      "line of round " + std::to_string(i) + " within " + std::to_string(int(bound_s)) +
                      " s; a rank is stuck in its op");
    const auto t0 = Clock::now();
    if (!error) {
      try {
        round();
      } catch (...) {
        error = std::current_exception();
      }
    }
    spans[static_cast<std::size_t>(i)] = {steady_seconds(t0), steady_seconds(Clock::now())};
  }
  if (error) std::rethrow_exception(error);
  return spans;
}

IsolatedTimes ShmFabric::time_isolated(const RankOp& op, int samples) {
  world_.barrier("starting a timed batch");
  const std::size_t n = static_cast<std::size_t>(samples);
  // [0, n): duration; [n, 2n): release time; [2n, 3n): minus release time (max gives the min).
  std::vector<double> v(3 * n, 0.0);
  std::exception_ptr error;
  try {
    auto spans = keep_in_step(samples, [&] { run_host_op(op, world_.rank()); });
    for (std::size_t s = 0; s < n; ++s) {
      v[s] = spans[s].second - spans[s].first;
      v[n + s] = spans[s].first;
      v[2 * n + s] = -spans[s].first;
    }
  } catch (...) {
    error = std::current_exception();
  }
  world_.max(v, "gathering the samples");
  agree(error_token(error), "ending a timed batch");
  IsolatedTimes out;
  out.samples.assign(v.begin(), v.begin() + std::ptrdiff_t(n));
  for (std::size_t s = 0; s < n; ++s) out.start_skew.push_back(v[n + s] + v[2 * n + s]);
  return out;
}

double ShmFabric::time_pipelined(const RankOp& op, int ops, int reps) {
  world_.barrier("starting a pipelined batch");
  std::vector<double> per_rep(static_cast<std::size_t>(reps), 0.0);
  std::exception_ptr error;
  try {
    auto spans = keep_in_step(reps, [&] {
      for (int i = 0; i < ops; ++i) run_host_op(op, world_.rank());
    });
    for (std::size_t r = 0; r < per_rep.size(); ++r) per_rep[r] = (spans[r].second - spans[r].first) / ops;
  } catch (...) {
    error = std::current_exception();
  }
  world_.max(per_rep, "gathering the pipelined times");
  agree(error_token(error), "ending a pipelined batch");
  return upper_median(per_rep);
}

}  // namespace arbench
