#include "kernels/fabric/cuda/start_gate.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"

namespace arbench {
namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ std::uint32_t load_acquire_sys(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release_sys(std::uint32_t* p, std::uint32_t v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// Spins until *p reaches `token` (wrap-safe) or `timeout_ns` after `start` has passed.
__device__ bool wait_for_token(const std::uint32_t* p, std::uint32_t token, std::uint64_t start,
                               std::uint64_t timeout_ns) {
  while (static_cast<std::int32_t>(load_acquire_sys(p) - token) < 0)
    if (global_timer_ns() - start > timeout_ns) return false;
  return true;
}

// What one rank's gate kernel needs, by value.
struct GateArgs {
  const std::uint32_t* host_word = nullptr;
  std::uint32_t token = 0;
  std::uint64_t timeout_ns = 0;
  GateRecord* record = nullptr;             // this rank's, host-mapped
  std::uint32_t* own = nullptr;             // own arrival words; nullptr: no device barrier
  std::uint32_t* peer[kMaxRanks] = {};      // every peer's arrival words, as this rank addresses them
  int rank = 0;
  int world = 1;
};

// Start gate (start_gate.hpp, steps 2-4). One thread. Requirements: every rank's gate kernel of
// a sample is resident at once (one per GPU, or N streams on one GPU:
// CUDA_DEVICE_MAX_CONNECTIONS >= N). All waits share one bound from the kernel's start, so a
// lost host or peer costs one timeout, and the sample is then discarded. Round k's arrival words
// are k x kMaxRanks .. (k+1) x kMaxRanks - 1 (sender index); the second round removes the bias
// of the last rank, which would otherwise leave one posted write before its peers.
__global__ void gate_kernel(const GateArgs g) {
  const std::uint64_t start = global_timer_ns();
  bool ok = wait_for_token(g.host_word, g.token, start, g.timeout_ns);
  if (g.own != nullptr) {
#pragma unroll
    for (int k = 0; k < kGateRounds; ++k) {
#pragma unroll
      for (int p = 0; p < kMaxRanks; ++p)  // compile-time indices: g.peer stays in parameter space
        if (p < g.world && p != g.rank) store_release_sys(g.peer[p] + k * kMaxRanks + g.rank, g.token);
#pragma unroll
      for (int p = 0; p < kMaxRanks; ++p)
        if (ok && p < g.world && p != g.rank) ok = wait_for_token(g.own + k * kMaxRanks + p, g.token, start, g.timeout_ns);
    }
  }
  g.record->release_ns = global_timer_ns();
  g.record->token = g.token;
  if (!ok) g.record->timed_out = g.token;
}

// Clock ping-pong between rank 0 (initiator) and one peer (gate_math.hpp PingRound). One thread
// each; `rounds` round trips with tokens first, first + 2, ... (pings odd offsets, pongs even);
// gives up after timeout_ns. `ping` is the responder's ping word, `pong` the initiator's pong word
// for this peer: each side polls the word in its own memory (host-mapped words, or the barrier's
// device memory, written by the other side through its peer mapping).
__global__ void clock_pingpong_kernel(std::uint32_t* ping, std::uint32_t* pong, int rounds, std::uint32_t first,
                                      int initiator, std::uint64_t timeout_ns, PingRound* out) {
  const std::uint64_t start = global_timer_ns();
  for (int i = 0; i < rounds; ++i) {
    const std::uint32_t ping_token = first + 2u * static_cast<std::uint32_t>(i), pong_token = ping_token + 1u;
    if (initiator != 0) {
      const std::uint64_t t0 = global_timer_ns();
      store_release_sys(ping, ping_token);
      if (!wait_for_token(pong, pong_token, start, timeout_ns)) return;
      out[i].t3 = global_timer_ns();
      out[i].t0 = t0;
    } else {
      if (!wait_for_token(ping, ping_token, start, timeout_ns)) return;
      out[i].t1 = global_timer_ns();
      store_release_sys(pong, pong_token);
    }
  }
}

template <class T>
T* host_mapped(std::size_t count, T** device_ptr) {
  T* p = nullptr;
  ARB_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p), sizeof(T) * count, cudaHostAllocMapped | cudaHostAllocPortable));
  std::memset(static_cast<void*>(p), 0, sizeof(T) * count);
  ARB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(device_ptr), p, 0));
  return p;
}

constexpr int kPingRounds = 16;

std::uint32_t* word_at(void* base, std::size_t index) { return static_cast<std::uint32_t*>(base) + index; }

}  // namespace

StartGate::StartGate(std::vector<int> devices, std::vector<cudaStream_t> streams, int first_rank, int world,
                     double timeout_s, std::unique_ptr<RankBuffers> flags, std::string why_host_only, World& processes)
    : devices_(std::move(devices)), streams_(std::move(streams)), first_rank_(first_rank), world_(world),
      timeout_s_(timeout_s), flags_(std::move(flags)), why_host_only_(std::move(why_host_only)),
      processes_(processes) {
  if (flags_ && world_ > kMaxRanks) {  // GateArgs holds kMaxRanks peers
    flags_.reset();
    why_host_only_ = "the device barrier spans at most " + std::to_string(kMaxRanks) + " ranks";
  }
  std::uint32_t* d_word = nullptr;
  word_ = host_mapped<std::uint32_t>(1, &d_word);
  d_word_ = d_word;
  records_ = host_mapped<GateRecord>(devices_.size(), &d_records_);
  measure_clock_offsets();
}

StartGate::~StartGate() {
  // Called after the owner's streams went idle (CudaFabric::~CudaFabric), or never (leaked).
  cudaFreeHost(const_cast<std::uint32_t*>(word_));
  cudaFreeHost(records_);
}

void StartGate::measure_clock_offsets() {
  const std::vector<std::optional<std::int64_t>> before = offsets_ns_;
  offsets_ns_.assign(devices_.size(), std::nullopt);
  errors_ns_.assign(devices_.size(), 0);
  const bool multi = world_ > int(devices_.size());
  const bool one_gpu = std::all_of(devices_.begin(), devices_.end(), [&](int d) { return d == devices_[0]; });
  if (!multi && one_gpu) {  // one GPU, one clock
    offsets_ns_.assign(devices_.size(), std::int64_t{0});
    clock_method_ = "one clock (one GPU)";
  } else if (flags_) {
    measure_peer();
    clock_method_ = "peer-to-peer ping-pong through the device barrier's memory";
  } else if (!multi) {
    measure_host_mapped();
    clock_method_ = "ping-pong through host-mapped memory";
  } else {
    if (first_rank_ == 0) offsets_ns_[0] = 0;
    clock_method_ = "unknown (the processes' GPUs have no device barrier to ping-pong through)";
  }
  drift_ns_ = -1;
  for (std::size_t r = 0; r < before.size() && r < offsets_ns_.size(); ++r)
    if (before[r] && offsets_ns_[r]) drift_ns_ = std::max(drift_ns_, std::fabs(double(*offsets_ns_[r] - *before[r])));
  measured_at_ = std::chrono::steady_clock::now();
}

void StartGate::measure_host_mapped() {
  offsets_ns_[0] = 0;
  for (std::size_t r = 1; r < devices_.size(); ++r) {
    if (devices_[r] == devices_[0]) {  // one GPU, one clock
      offsets_ns_[r] = 0;
      continue;
    }
    std::uint32_t* d_words = nullptr;
    PingRound* d_out = nullptr;
    auto* words = host_mapped<std::uint32_t>(2, &d_words);
    auto* out = host_mapped<PingRound>(kPingRounds, &d_out);
    const auto timeout_ns = static_cast<std::uint64_t>(timeout_s_ * 1e9);
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    clock_pingpong_kernel<<<1, 1, 0, streams_[r]>>>(d_words, d_words + 1, kPingRounds, 1, 0, timeout_ns, d_out);
    ARB_CUDA_CHECK(cudaGetLastError());
    ARB_CUDA_CHECK(cudaSetDevice(devices_[0]));
    clock_pingpong_kernel<<<1, 1, 0, streams_[0]>>>(d_words, d_words + 1, kPingRounds, 1, 1, timeout_ns, d_out);
    ARB_CUDA_CHECK(cudaGetLastError());
    const auto deadline = deadline_in(timeout_s_ * 2);
    bool idle = wait_stream(streams_[0], deadline);
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    idle = wait_stream(streams_[r], deadline) && idle;
    if (idle) {
      if (const auto e = estimate_clock(std::vector<PingRound>(out, out + kPingRounds))) {
        offsets_ns_[r] = e->offset_ns;
        errors_ns_[r] = e->error_ns;
      }
      cudaFreeHost(words);
      cudaFreeHost(out);
    }  // else a kernel may still write them: leave them allocated; the offset stays unknown
  }
}

// Rank 0 pings each peer through the peer's ping word and waits for the pong in its own pong word
// of that peer; each side polls its own device memory, so a round trip is two peer-to-peer writes.
// With several processes, rank 0's process runs the initiators and each other process its own
// responder; the stamps are exchanged over the World and every process computes every offset.
void StartGate::measure_peer() {
  const auto timeout_ns = static_cast<std::uint64_t>(timeout_s_ * 1e9);
  const std::uint32_t first = 1u + 2u * kPingRounds * ++ping_seq_;  // fresh tokens: the words keep old ones
  // rounds[r]: the stamps of rank r's ping-pong with rank 0, as far as this process knows them.
  std::vector<std::vector<PingRound>> rounds(static_cast<std::size_t>(world_), std::vector<PingRound>(kPingRounds));
  std::vector<PingRound*> outs(static_cast<std::size_t>(world_), nullptr), d_outs(static_cast<std::size_t>(world_), nullptr);
  const bool drives_zero = first_rank_ == 0;
  auto drives = [&](int r) { return r >= first_rank_ && r < first_rank_ + int(devices_.size()); };
  auto local = [&](int r) { return std::size_t(r - first_rank_); };
  processes_.barrier("measuring the GPUs' clock offsets");
  bool idle = true;
  for (int r = 1; r < world_; ++r) {
    if (!drives(r) && !drives_zero) continue;
    if (drives(r) && drives_zero && devices_[local(r)] == devices_[0]) continue;  // one GPU, one clock
    outs[std::size_t(r)] = host_mapped<PingRound>(kPingRounds, &d_outs[std::size_t(r)]);
    if (drives(r)) {  // the responder first: it polls its own ping word, answers into rank 0's memory
      ARB_CUDA_CHECK(cudaSetDevice(devices_[local(r)]));
      clock_pingpong_kernel<<<1, 1, 0, streams_[local(r)]>>>(
          word_at(flags_->local(r), kPingWord), word_at(flags_->peer(r, 0), kPongWords + std::size_t(r)), kPingRounds,
          first, 0, timeout_ns, d_outs[std::size_t(r)]);
      ARB_CUDA_CHECK(cudaGetLastError());
    }
    if (drives_zero) {  // the initiator: pings into r's memory, polls its own pong word of r
      ARB_CUDA_CHECK(cudaSetDevice(devices_[0]));
      clock_pingpong_kernel<<<1, 1, 0, streams_[0]>>>(
          word_at(flags_->peer(0, r), kPingWord), word_at(flags_->local(0), kPongWords + std::size_t(r)), kPingRounds,
          first, 1, timeout_ns, d_outs[std::size_t(r)]);
      ARB_CUDA_CHECK(cudaGetLastError());
      // Rank 0 runs one peer at a time: its next peer's responder may wait meanwhile (bounded).
      idle = wait_stream(streams_[0], deadline_in(timeout_s_ * 2)) && idle;
    }
  }
  const auto deadline = deadline_in(timeout_s_ * 2);
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[i]));
    idle = wait_stream(streams_[i], deadline) && idle;
  }
  for (int r = 1; r < world_; ++r)
    if (outs[std::size_t(r)] != nullptr) std::copy(outs[std::size_t(r)], outs[std::size_t(r)] + kPingRounds, rounds[std::size_t(r)].begin());
  if (idle)
    for (PingRound* o : outs)
      if (o != nullptr) cudaFreeHost(o);  // else a kernel may still write them: left allocated
  // Across processes: rank 0's process knows t0/t3, rank r's process t1. Every process sends the
  // stamps it knows, exactly (text); a stamp of 0 is unknown, so the others fill it in.
  if (processes_.multi_process()) {
    std::ostringstream mine;
    for (int r = 1; r < world_; ++r)
      for (int i = 0; i < kPingRounds; ++i) {
        const PingRound& p = rounds[std::size_t(r)][std::size_t(i)];
        if (p.t0 != 0 || p.t1 != 0 || p.t3 != 0) mine << r << ' ' << i << ' ' << p.t0 << ' ' << p.t1 << ' ' << p.t3 << '\n';
      }
    for (const std::string& theirs : processes_.all_gather(mine.str(), "exchanging the clock ping-pong stamps")) {
      std::istringstream in(theirs);
      int r = 0, i = 0;
      std::uint64_t t0 = 0, t1 = 0, t3 = 0;
      while (in >> r >> i >> t0 >> t1 >> t3) {
        if (r <= 0 || r >= world_ || i < 0 || i >= kPingRounds) continue;
        PingRound& p = rounds[std::size_t(r)][std::size_t(i)];
        if (t0 != 0) p.t0 = t0;
        if (t1 != 0) p.t1 = t1;
        if (t3 != 0) p.t3 = t3;
      }
    }
    // A reading of rank 0's clock every process now knows: the release stamps are taken relative
    // to it, so the skew's doubles stay exact (release_extremes).
    for (int r = 1; r < world_ && base_ns_ == 0; ++r) base_ns_ = rounds[std::size_t(r)][0].t0;
    for (int r = first_rank_; r < first_rank_ + int(devices_.size()); ++r) {
      if (r == 0) {
        offsets_ns_[local(r)] = 0;
        continue;
      }
      if (const auto e = estimate_clock(rounds[std::size_t(r)])) {
        offsets_ns_[local(r)] = e->offset_ns;
        errors_ns_[local(r)] = e->error_ns;
      }
    }
    return;
  }
  offsets_ns_[0] = 0;
  for (int r = 1; r < world_; ++r) {
    if (devices_[local(r)] == devices_[0]) {
      offsets_ns_[local(r)] = 0;
      continue;
    }
    if (!idle) continue;
    if (const auto e = estimate_clock(rounds[std::size_t(r)])) {
      offsets_ns_[local(r)] = e->offset_ns;
      errors_ns_[local(r)] = e->error_ns;
    }
  }
}

void StartGate::refresh_clocks(double max_age_s) {
  std::vector<double> age{std::chrono::duration<double>(std::chrono::steady_clock::now() - measured_at_).count()};
  processes_.max(age, "agreeing on the clock offsets' age");
  if (age[0] > max_age_s) measure_clock_offsets();
}

ClockSync StartGate::clock_sync() const {
  ClockSync c;
  c.method = clock_method_;
  std::uint64_t worst = 0;
  bool known = true;
  for (std::size_t i = 0; i < offsets_ns_.size(); ++i) {
    known = known && offsets_ns_[i].has_value();
    worst = std::max(worst, errors_ns_[i]);
  }
  if (!known) c.method = "unknown (a ping-pong did not complete)";
  c.error_bound_us = double(worst) * 1e-3;
  c.drift_us = drift_ns_ >= 0 ? drift_ns_ * 1e-3 : -1;
  c.age_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - measured_at_).count();
  return c;
}

void StartGate::enqueue(int rank, std::uint32_t token) {
  const std::size_t local = static_cast<std::size_t>(rank - first_rank_);
  GateArgs g;
  g.host_word = d_word_;
  g.token = token;
  g.timeout_ns = static_cast<std::uint64_t>(timeout_s_ * 1e9);
  g.record = d_records_ + local;
  g.rank = rank;
  g.world = world_;
  if (flags_) {
    g.own = static_cast<std::uint32_t*>(flags_->local(rank));
    for (int p = 0; p < g.world; ++p)
      g.peer[p] = p == rank ? g.own : static_cast<std::uint32_t*>(flags_->peer(rank, p));
  }
  gate_kernel<<<1, 1, 0, streams_.at(local)>>>(g);
  ARB_CUDA_CHECK(cudaGetLastError());
}

void StartGate::open(std::uint32_t token) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *word_ = token;
}

bool StartGate::timed_out(std::uint32_t token) const {
  return gate_timed_out(std::vector<GateRecord>(records_, records_ + devices_.size()), token);
}

std::optional<double> StartGate::skew_s(std::uint32_t token) const {
  return start_skew_s(std::vector<GateRecord>(records_, records_ + devices_.size()), token, offsets_ns_);
}

std::optional<ReleaseExtremes> StartGate::extremes(std::uint32_t token) const {
  return release_extremes(std::vector<GateRecord>(records_, records_ + devices_.size()), token, offsets_ns_, base_ns_);
}

std::string StartGate::describe() const {
  return flags_ ? "host word + device barrier (" + std::to_string(kGateRounds) + " rounds)"
                : "host word only (" + why_host_only_ + ")";
}

}  // namespace arbench
