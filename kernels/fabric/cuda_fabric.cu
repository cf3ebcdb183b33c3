#include "kernels/fabric/cuda_fabric.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "arbench/core/cuda_check.hpp"

namespace arbench {
namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ std::uint32_t load_acquire_sys(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Start gate. Purpose: hold a rank's stream until the host has enqueued every rank's op, so
// all ranks start together. Protocol: spin until the host-mapped word reaches `token`
// (wrap-safe); give up after timeout_ns and record the token, so a lost host never hangs a GPU.
__global__ void gate_kernel(const std::uint32_t* gate, std::uint32_t token, std::uint64_t timeout_ns,
                            std::uint32_t* timeouts) {
  const std::uint64_t start = global_timer_ns();
  while (static_cast<std::int32_t>(load_acquire_sys(gate) - token) < 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timeouts = token;
      return;
    }
  }
}

using Clock = std::chrono::steady_clock;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

int cuda_device_count_or_throw() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::string why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e)
                                       : std::string("no CUDA device is visible");
    (void)cudaGetLastError();
    throw EnvironmentError("no usable CUDA device (" + why +
                           "). Install the NVIDIA driver and check CUDA_VISIBLE_DEVICES, or run "
                           "without a GPU: --backend host");
  }
  return n;
}

// ---- DeviceBuffers ------------------------------------------------------------------------

DeviceBuffers::DeviceBuffers(const std::vector<int>& devices, std::size_t bytes, bool symmetric)
    : devices_(devices), bytes_(bytes), symmetric_(symmetric) {
  for (int d : devices_) {
    ARB_CUDA_CHECK(cudaSetDevice(d));
    void* p = nullptr;
    ARB_CUDA_CHECK(cudaMalloc(&p, std::max<std::size_t>(bytes, 16)));
    ARB_CUDA_CHECK(cudaMemset(p, 0, std::max<std::size_t>(bytes, 16)));
    ptrs_.push_back(p);
  }
  ARB_CUDA_CHECK(cudaDeviceSynchronize());
}

DeviceBuffers::~DeviceBuffers() {
  for (std::size_t r = 0; r < ptrs_.size(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaFree(ptrs_[r]);
  }
}

void* DeviceBuffers::peer(int rank, int peer) const {
  if (!symmetric_) throw CaseError("peer() asked of a local (non-symmetric) device buffer");
  if (devices_.at(rank) != devices_.at(peer))
    throw CaseError("plain device buffers are symmetric only between ranks on one GPU");
  return ptrs_.at(peer);
}

// ---- CudaFabric ---------------------------------------------------------------------------

CudaFabric::CudaFabric(std::vector<int> devices, double timeout_s)
    : devices_(std::move(devices)), timeout_s_(timeout_s) {
  ARB_CUDA_CHECK(cudaHostAlloc(const_cast<std::uint32_t**>(&gate_), sizeof(std::uint32_t),
                               cudaHostAllocMapped | cudaHostAllocPortable));
  ARB_CUDA_CHECK(cudaHostAlloc(&gate_timeouts_, sizeof(std::uint32_t), cudaHostAllocMapped | cudaHostAllocPortable));
  *gate_ = 0;
  *gate_timeouts_ = 0;
  ARB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_gate_), const_cast<std::uint32_t*>(gate_), 0));
  ARB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_gate_timeouts_), gate_timeouts_, 0));
  for (int d : devices_) {
    ARB_CUDA_CHECK(cudaSetDevice(d));
    cudaStream_t s;
    cudaEvent_t a, b;
    ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ARB_CUDA_CHECK(cudaEventCreate(&a));
    ARB_CUDA_CHECK(cudaEventCreate(&b));
    streams_.push_back(s);
    start_.push_back(a);
    stop_.push_back(b);
  }
}

CudaFabric::~CudaFabric() {
  for (std::size_t r = 0; r < streams_.size(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaStreamSynchronize(streams_[r]);
    cudaEventDestroy(start_[r]);
    cudaEventDestroy(stop_[r]);
    cudaStreamDestroy(streams_[r]);
  }
  for (std::size_t r = 0; r < flush_bufs_.size(); ++r)
    if (flush_bufs_[r]) {
      cudaSetDevice(devices_[r]);
      cudaFree(flush_bufs_[r]);
    }
  cudaFreeHost(const_cast<std::uint32_t*>(gate_));
  cudaFreeHost(gate_timeouts_);
}

void CudaFabric::upload(int rank, void* dst, const void* src, std::size_t bytes) {
  ARB_CUDA_CHECK(cudaSetDevice(devices_[rank]));
  ARB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

void CudaFabric::download(int rank, void* dst, const void* src, std::size_t bytes) {
  ARB_CUDA_CHECK(cudaSetDevice(devices_[rank]));
  ARB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

void CudaFabric::launch_all(const RankFn& fn) {
  begin_op_group();
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    fn(r, streams_[r]);
  }
  end_op_group();
}

void CudaFabric::sync_all() {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_ * 2);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    for (;;) {
      cudaError_t e = cudaStreamQuery(streams_[r]);
      if (e == cudaSuccess) break;
      if (e != cudaErrorNotReady) ARB_CUDA_CHECK(e);
      if (Clock::now() > deadline)
        throw CaseError("rank " + std::to_string(r) + " (GPU " + std::to_string(devices_[r]) +
                        ") did not finish within " + std::to_string(timeout_s_ * 2) +
                        " s; a kernel is stuck (its peers never arrived?)");
      std::this_thread::yield();
    }
  }
}

void CudaFabric::run(const RankFn& fn) {
  launch_all(fn);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaGetLastError());
  }
  sync_all();
}

void CudaFabric::enqueue_gate(int rank, std::uint32_t token) {
  gate_kernel<<<1, 1, 0, streams_[rank]>>>(d_gate_, token, std::uint64_t(timeout_s_ * 1e9), d_gate_timeouts_);
  ARB_CUDA_CHECK(cudaGetLastError());
}

void CudaFabric::open_gate(std::uint32_t token) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *gate_ = token;
}

std::vector<double> CudaFabric::time_isolated(const RankFn& fn, int samples) {
  std::vector<double> out;
  out.reserve(samples);
  for (int s = 0; s < samples; ++s) {
    const std::uint32_t token = ++gate_token_;
    for (int r = 0; r < world(); ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      enqueue_gate(r, token);
      ARB_CUDA_CHECK(cudaEventRecord(start_[r], streams_[r]));
    }
    launch_all(fn);
    for (int r = 0; r < world(); ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      ARB_CUDA_CHECK(cudaEventRecord(stop_[r], streams_[r]));
    }
    open_gate(token);
    sync_all();
    double worst = 0;
    for (int r = 0; r < world(); ++r) {
      float ms = 0;
      ARB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_[r], stop_[r]));
      worst = std::max(worst, double(ms) * 1e-3);
    }
    out.push_back(worst);
  }
  return out;
}

double CudaFabric::time_pipelined(const RankFn& fn, int ops, int reps) {
  // Capture `ops` back-to-back ops of every rank into one graph per rank.
  std::vector<cudaGraph_t> graphs(world(), nullptr);
  std::vector<cudaGraphExec_t> execs(world(), nullptr);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaStreamBeginCapture(streams_[r], cudaStreamCaptureModeRelaxed));
  }
  for (int k = 0; k < ops; ++k) launch_all(fn);
  for (int r = 0; r < world(); ++r) {
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaStreamEndCapture(streams_[r], &graphs[r]));
    ARB_CUDA_CHECK(cudaGraphInstantiate(&execs[r], graphs[r], 0));
  }
  auto launch_graphs = [&](std::uint32_t token, bool timed) {
    for (int r = 0; r < world(); ++r) {
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      enqueue_gate(r, token);
      if (timed) ARB_CUDA_CHECK(cudaEventRecord(start_[r], streams_[r]));
      ARB_CUDA_CHECK(cudaGraphLaunch(execs[r], streams_[r]));
      if (timed) ARB_CUDA_CHECK(cudaEventRecord(stop_[r], streams_[r]));
    }
    open_gate(token);
    sync_all();
  };
  launch_graphs(++gate_token_, false);  // upload and warm the graphs
  std::vector<double> per_op;
  for (int i = 0; i < reps; ++i) {
    launch_graphs(++gate_token_, true);
    double worst = 0;
    for (int r = 0; r < world(); ++r) {
      float ms = 0;
      ARB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_[r], stop_[r]));
      worst = std::max(worst, double(ms) * 1e-3);
    }
    per_op.push_back(worst / ops);
  }
  for (int r = 0; r < world(); ++r) {
    cudaSetDevice(devices_[r]);
    cudaGraphExecDestroy(execs[r]);
    cudaGraphDestroy(graphs[r]);
  }
  return median_of(per_op);
}

void CudaFabric::flush_caches() {
  if (flush_bufs_.empty()) {
    flush_bufs_.assign(devices_.size(), nullptr);
    flush_bytes_.assign(devices_.size(), 0);
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      if (std::find(devices_.begin(), devices_.begin() + std::ptrdiff_t(r), devices_[r]) !=
          devices_.begin() + std::ptrdiff_t(r))
        continue;  // single_gpu: one flush per device is enough
      int l2 = 0;
      ARB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, devices_[r]));
      flush_bytes_[r] = 2 * std::size_t(std::max(l2, 1 << 20));
      ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
      ARB_CUDA_CHECK(cudaMalloc(&flush_bufs_[r], flush_bytes_[r]));
    }
  }
  // A write of twice the L2 leaves none of the op's buffers in it (as nvbench's L2 flush).
  for (std::size_t r = 0; r < flush_bufs_.size(); ++r) {
    if (!flush_bufs_[r]) continue;
    ARB_CUDA_CHECK(cudaSetDevice(devices_[r]));
    ARB_CUDA_CHECK(cudaMemsetAsync(flush_bufs_[r], int(r & 0xff), flush_bytes_[r], streams_[r]));
  }
  sync_all();
}

}  // namespace arbench
