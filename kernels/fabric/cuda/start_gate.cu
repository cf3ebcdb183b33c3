#include "kernels/fabric/cuda/start_gate.hpp"

#include <atomic>
#include <cstdio>
#include <cstring>

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
// lost host or peer costs one timeout, and the sample is then discarded.
__global__ void gate_kernel(const GateArgs g) {
  const std::uint64_t start = global_timer_ns();
  bool ok = wait_for_token(g.host_word, g.token, start, g.timeout_ns);
  if (g.own != nullptr) {
#pragma unroll
    for (int p = 0; p < kMaxRanks; ++p)  // compile-time indices: g.peer stays in parameter space
      if (p < g.world && p != g.rank) store_release_sys(g.peer[p] + g.rank, g.token);
#pragma unroll
    for (int p = 0; p < kMaxRanks; ++p)
      if (ok && p < g.world && p != g.rank) ok = wait_for_token(g.own + p, g.token, start, g.timeout_ns);
  }
  g.record->release_ns = global_timer_ns();
  g.record->token = g.token;
  if (!ok) g.record->timed_out = g.token;
}

// Clock ping-pong between rank 0 (initiator) and one peer through host-mapped words
// (gate_math.hpp PingRound). One thread each; `rounds` round trips; gives up after timeout_ns.
__global__ void clock_pingpong_kernel(std::uint32_t* to_peer, std::uint32_t* to_initiator, int rounds,
                                      int initiator, std::uint64_t timeout_ns, PingRound* out) {
  const std::uint64_t start = global_timer_ns();
  for (int i = 0; i < rounds; ++i) {
    const std::uint32_t ping = 2u * static_cast<std::uint32_t>(i) + 1u, pong = ping + 1u;
    if (initiator != 0) {
      const std::uint64_t t0 = global_timer_ns();
      store_release_sys(to_peer, ping);
      if (!wait_for_token(to_initiator, pong, start, timeout_ns)) return;
      out[i].t3 = global_timer_ns();
      out[i].t0 = t0;
    } else {
      if (!wait_for_token(to_peer, ping, start, timeout_ns)) return;
      out[i].t1 = global_timer_ns();
      store_release_sys(to_initiator, pong);
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

}  // namespace

StartGate::StartGate(std::vector<int> devices, std::vector<cudaStream_t> streams, int first_rank, int world,
                     double timeout_s, std::unique_ptr<RankBuffers> flags, std::string why_host_only)
    : devices_(std::move(devices)), streams_(std::move(streams)), first_rank_(first_rank), world_(world),
      timeout_s_(timeout_s), flags_(std::move(flags)), why_host_only_(std::move(why_host_only)) {
  if (flags_ && world_ > kMaxRanks) {  // GateArgs holds kMaxRanks peers
    flags_.reset();
    why_host_only_ = "the device barrier spans at most " + std::to_string(kMaxRanks) + " ranks";
  }
  std::uint32_t* d_word = nullptr;
  word_ = host_mapped<std::uint32_t>(1, &d_word);
  d_word_ = d_word;
  records_ = host_mapped<GateRecord>(devices_.size(), &d_records_);
  offsets_ns_.assign(devices_.size(), std::nullopt);
  offsets_ns_[0] = 0;
  measure_clock_offsets();
}

StartGate::~StartGate() {
  // Called after the owner's streams went idle (CudaFabric::~CudaFabric), or never (leaked).
  cudaFreeHost(const_cast<std::uint32_t*>(word_));
  cudaFreeHost(records_);
}

void StartGate::measure_clock_offsets() {
  for (std::size_t r = 1; r < devices_.size(); ++r) {
    if (devices_[r] == devices_[0]) {  // one GPU, one clock
      offsets_ns_[r] = 0;
      continue;
    }
    std::uint32_t *d_words = nullptr;
    PingRound* d_out = nullptr;
    auto* words = host_mapped<std::uint32_t>(2, &d_words);
    auto* out = host_mapped<PingRound>(kPingRounds, &d_out);
    const auto timeout_ns = static_cast<std::uint64_t>(timeout_s_ * 1e9);
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    clock_pingpong_kernel<<<1, 1, 0, streams_[r]>>>(d_words, d_words + 1, kPingRounds, 0, timeout_ns, d_out);
    ARB_CUDA_CHECK(cudaGetLastError());
    ARB_CUDA_CHECK(cudaSetDevice(devices_[0]));
    clock_pingpong_kernel<<<1, 1, 0, streams_[0]>>>(d_words, d_words + 1, kPingRounds, 1, timeout_ns, d_out);
    ARB_CUDA_CHECK(cudaGetLastError());
    const auto deadline = deadline_in(timeout_s_ * 2);
    bool idle = wait_stream(streams_[0], deadline);
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    idle = wait_stream(streams_[r], deadline) && idle;
    if (idle) {
      offsets_ns_[r] = estimate_clock_offset(std::vector<PingRound>(out, out + kPingRounds));
      cudaFreeHost(words);
      cudaFreeHost(out);
    }  // else a kernel may still write them: leave them allocated; the offset stays unknown
  }
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

std::string StartGate::describe() const {
  return flags_ ? "host word + device barrier" : "host word only (" + why_host_only_ + ")";
}

}  // namespace arbench
