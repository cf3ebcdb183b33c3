// Host machinery the link probes share (probe.cu: one link at a time; probe_loaded.cu: all links
// at once; pattern_probe.cu: a traffic pattern): one GPU's probe resources, peer access that is
// undone on exit, the flag ping-pong between two GPUs, a peer's slot and the event timing.
// CUDA-linked, included by the probes' .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/cuda_check.hpp"
#include "topo/gpu/cuda_gpus.hpp"
#include "topo/links.hpp"
#include "topo/gpu/probe.hpp"
#include "topo/gpu/probe_kernels.cuh"

namespace arbench::topo::probe {

inline constexpr int kCopyThreads = 512;
inline constexpr int kFlagStride = 32;  // second flag word 128 B away: the diagonal's responder

// One GPU's probe resources, freed on scope exit (errors there are ignored: the process may
// already be failing for a better-reported reason). `b` holds `landing_slots` copies' worth of
// bytes: one per source when every peer writes into this GPU at once.
struct ProbeDevice {
  int ordinal = 0;
  int blocks = 1;
  cudaStream_t stream = nullptr, stream2 = nullptr;  // stream2: the diagonal's responder, probes under load
  cudaEvent_t start = nullptr, stop = nullptr, done = nullptr;
  uint4 *a = nullptr, *b = nullptr;  // a: source data, b: landing zone
  unsigned* flags = nullptr;
  PingPongResult* result = nullptr;  // [0] as initiator, [1] as responder

  ProbeDevice(const CudaGpu& g, std::size_t bytes, std::size_t landing_slots = 1)
      : ordinal(g.ordinal), blocks(std::max(1, 2 * g.sm_count)) {
    ARB_CUDA_CHECK(cudaSetDevice(ordinal));
    ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking));
    ARB_CUDA_CHECK(cudaEventCreate(&start));
    ARB_CUDA_CHECK(cudaEventCreate(&stop));
    ARB_CUDA_CHECK(cudaEventCreate(&done));
    ARB_CUDA_CHECK(cudaMalloc(&a, bytes));
    ARB_CUDA_CHECK(cudaMalloc(&b, bytes * std::max<std::size_t>(1, landing_slots)));
    ARB_CUDA_CHECK(cudaMalloc(&flags, 2 * kFlagStride * sizeof(unsigned)));
    ARB_CUDA_CHECK(cudaMalloc(&result, 2 * sizeof(PingPongResult)));
    ARB_CUDA_CHECK(cudaMemsetAsync(a, 0x5a, bytes, stream));
    ARB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  ~ProbeDevice() {
    cudaSetDevice(ordinal);
    cudaFree(result);
    cudaFree(flags);
    cudaFree(b);
    cudaFree(a);
    cudaEventDestroy(done);
    cudaEventDestroy(stop);
    cudaEventDestroy(start);
    cudaStreamDestroy(stream2);
    cudaStreamDestroy(stream);
  }
  ProbeDevice(const ProbeDevice&) = delete;
  ProbeDevice& operator=(const ProbeDevice&) = delete;
};

// Enables peer access where CUDA allows it; disables what it enabled on exit, so the
// process is left as it was found. ok[i][j]: GPU i can address GPU j's memory.
struct PeerAccess {
  std::vector<std::vector<int>> ok;
  std::vector<std::pair<int, int>> enabled;
  explicit PeerAccess(const std::vector<CudaGpu>& gpus) : ok(gpus.size(), std::vector<int>(gpus.size(), 0)) {
    for (std::size_t i = 0; i < gpus.size(); ++i)
      for (std::size_t j = 0; j < gpus.size(); ++j) {
        if (i == j) {
          ok[i][j] = 1;
          continue;
        }
        int can = 0;
        ARB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, gpus[i].ordinal, gpus[j].ordinal));
        if (!can) continue;
        ARB_CUDA_CHECK(cudaSetDevice(gpus[i].ordinal));
        cudaError_t e = cudaDeviceEnablePeerAccess(gpus[j].ordinal, 0);
        if (e == cudaSuccess) enabled.emplace_back(gpus[i].ordinal, gpus[j].ordinal);
        if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) ok[i][j] = 1;
        (void)cudaGetLastError();  // a refused enable (e.g. too many peers) is not sticky
      }
  }
  ~PeerAccess() {
    for (auto [from, to] : enabled) {
      cudaSetDevice(from);
      cudaDeviceDisablePeerAccess(to);
    }
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;
};

// The pinned host word every gate kernel polls (the loaded-links and pattern probes' start gate);
// the device sees it through UVA.
struct HostGate {
  unsigned* word = nullptr;
  unsigned* device_word = nullptr;
  HostGate() {
    ARB_CUDA_CHECK(cudaHostAlloc(&word, sizeof(unsigned), cudaHostAllocMapped | cudaHostAllocPortable));
    ARB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_word), word, 0));
    set(0);
  }
  ~HostGate() { cudaFreeHost(word); }
  void set(unsigned v) { __atomic_store_n(word, v, __ATOMIC_RELEASE); }
  HostGate(const HostGate&) = delete;
  HostGate& operator=(const HostGate&) = delete;
};

// Where the two sides of a ping-pong run: x initiates on xs with flag xf, y answers on ys.
struct PingPongSides {
  ProbeDevice *x, *y;
  unsigned *xf, *yf;
  cudaStream_t xs, ys;
};

// x -> y on the GPUs' main streams; the diagonal (x == y) answers on stream2 with a second flag.
inline PingPongSides pingpong_sides(ProbeDevice& x, ProbeDevice& y) {
  const bool same = &x == &y;
  return {&x, &y, x.flags, same ? x.flags + kFlagStride : y.flags, x.stream, same ? x.stream2 : y.stream};
}

// Zeroes both sides' flags and results (values count up from 1 in every run), synchronously.
inline void reset_pingpong(const PingPongSides& s) {
  for (ProbeDevice* d : {s.x, s.y}) {
    ARB_CUDA_CHECK(cudaSetDevice(d->ordinal));
    ARB_CUDA_CHECK(cudaMemsetAsync(d->flags, 0, 2 * kFlagStride * sizeof(unsigned), d->stream));
    ARB_CUDA_CHECK(cudaMemsetAsync(d->result, 0, 2 * sizeof(PingPongResult), d->stream));
    ARB_CUDA_CHECK(cudaStreamSynchronize(d->stream));
  }
}

// Enqueues both kernels, responder first (it must be waiting); the handshake round's longer
// bound covers the launch skew between the GPUs (and, under load, the start gate).
inline void launch_pingpong(const PingPongSides& s, const ProbeOptions& opt) {
  const auto rounds = static_cast<unsigned>(opt.latency_rounds);
  const auto bound_ns = static_cast<unsigned long long>(opt.wait_timeout_s * 1e9);
  const unsigned long long first_ns = std::max(5'000'000'000ULL, 5 * bound_ns);
  ARB_CUDA_CHECK(cudaSetDevice(s.y->ordinal));
  pingpong_kernel<<<1, 1, 0, s.ys>>>(s.yf, s.xf, rounds, 0, first_ns, bound_ns, s.y->result + 1);
  ARB_CUDA_CHECK(cudaGetLastError());
  ARB_CUDA_CHECK(cudaSetDevice(s.x->ordinal));
  pingpong_kernel<<<1, 1, 0, s.xs>>>(s.xf, s.yf, rounds, 1, first_ns, bound_ns, s.x->result);
  ARB_CUDA_CHECK(cudaGetLastError());
}

// After both streams finished: one-way latency in µs, or nullopt with the reason in *why.
inline std::optional<double> pingpong_one_way_us(const PingPongSides& s, const ProbeOptions& opt, std::string* why) {
  PingPongResult ri{}, rr{};
  ARB_CUDA_CHECK(cudaSetDevice(s.x->ordinal));  // on the probe streams, not the legacy default stream
  ARB_CUDA_CHECK(cudaMemcpyAsync(&ri, s.x->result, sizeof ri, cudaMemcpyDeviceToHost, s.xs));
  ARB_CUDA_CHECK(cudaStreamSynchronize(s.xs));
  ARB_CUDA_CHECK(cudaSetDevice(s.y->ordinal));
  ARB_CUDA_CHECK(cudaMemcpyAsync(&rr, s.y->result + 1, sizeof rr, cudaMemcpyDeviceToHost, s.ys));
  ARB_CUDA_CHECK(cudaStreamSynchronize(s.ys));
  if (ri.failed_round || rr.failed_round) {
    *why = "ping-pong timed out (initiator round " + std::to_string(ri.failed_round) + ", responder round " +
           std::to_string(rr.failed_round) + ", bound " + std::to_string(opt.wait_timeout_s) + " s per wait)";
    return std::nullopt;
  }
  return static_cast<double>(ri.elapsed_ns) / opt.latency_rounds / 2.0 / 1000.0;
}

inline LinkMatrix empty_matrix(std::size_t n, std::string method, std::string unit, std::uint64_t bytes, int reps) {
  LinkMatrix m;
  m.method = std::move(method);
  m.unit = std::move(unit);
  m.bytes = bytes;
  m.repetitions = reps;
  m.values.assign(n, std::vector<std::optional<double>>(n));
  return m;
}

inline std::string pair_name(std::size_t i, std::size_t j) { return std::to_string(i) + "->" + std::to_string(j); }

// GPU g's slot for peer p among its N-1 peers (its stream, its event, its landing zone for p's data).
inline std::size_t slot(std::size_t g, std::size_t p) { return p < g ? p : p - 1; }

// Milliseconds between two events that have completed.
inline float elapsed_ms(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  ARB_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return ms;
}

}  // namespace arbench::topo::probe
