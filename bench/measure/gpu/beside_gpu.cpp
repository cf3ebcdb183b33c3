#include "measure/gpu/beside_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "arbench/core/cuda_check.hpp"
#include "arbench/core/errors.hpp"
#include "measure/gpu/beside_kernels.cuh"

namespace arbench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kBufferBytes = std::size_t(256) << 20;  // beyond the L2 (RTX PRO 6000: 128 MB)
constexpr std::size_t kInFlight = 4;                          // kernels queued per GPU: launches stay hidden

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Waits for `e` polling, at most `bound_s`; false on expiry.
bool wait_event(cudaEvent_t e, double bound_s) {
  const Clock::time_point t0 = Clock::now();
  for (;;) {
    const cudaError_t q = cudaEventQuery(e);
    if (q == cudaSuccess) return true;
    if (q != cudaErrorNotReady) ARB_CUDA_CHECK(q);
    if (seconds_since(t0) > bound_s) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// The same for a destructor: errors are the caller's to ignore, never thrown.
bool wait_event_quietly(cudaEvent_t e, double bound_s) {
  const Clock::time_point t0 = Clock::now();
  for (;;) {
    const cudaError_t q = cudaEventQuery(e);
    if (q != cudaErrorNotReady) return q == cudaSuccess;
    if (seconds_since(t0) > bound_s) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

struct GpuSide {
  int device = 0, sms = 1, fma_iters = 1;
  std::size_t mem_count = 1, n16 = 0, at = 0;
  cudaStream_t stream = nullptr;
  void* buf = nullptr;
  float* sink = nullptr;
  std::thread feeder;
  std::atomic<std::uint64_t> done{0};
};

class GpuBesideLoad final : public BesideLoad {
 public:
  GpuBesideLoad(const std::vector<int>& devices, BesideKind kind, double bound_s) : kind_(kind), bound_s_(bound_s) {
    for (int d : devices) {
      auto g = std::make_unique<GpuSide>();
      g->device = d;
      ARB_CUDA_CHECK(cudaSetDevice(d));
      ARB_CUDA_CHECK(cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, d));
      int least = 0, greatest = 0;
      ARB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      ARB_CUDA_CHECK(cudaStreamCreateWithPriority(&g->stream, cudaStreamNonBlocking, least));
      ARB_CUDA_CHECK(cudaMalloc(&g->buf, kBufferBytes));
      ARB_CUDA_CHECK(cudaMemsetAsync(g->buf, 0x5a, kBufferBytes, g->stream));  // before its kernels, on their stream
      ARB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&g->sink), sizeof(float) * std::size_t(g->sms * beside::kBlocksPerSm)));
      g->n16 = kBufferBytes / 16;
      calibrate(*g);
      gpus_.push_back(std::move(g));
    }
  }

  ~GpuBesideLoad() override {
    try {
      stop();
    } catch (...) {  // already reported by the harness's stop(), or the process is failing for a better reason
    }
    for (auto& g : gpus_) {
      cudaSetDevice(g->device);
      cudaEvent_t e = nullptr;  // the stream's last kernel, waited for with the bound (a hung GPU: left as is)
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess) {
        if (cudaEventRecord(e, g->stream) == cudaSuccess) (void)wait_event_quietly(e, bound_s_);
        cudaEventDestroy(e);
      }
      cudaFree(g->buf);
      cudaFree(g->sink);
      cudaStreamDestroy(g->stream);
    }
  }

  void start() override {
    stop_.store(false);
    for (auto& g : gpus_) g->feeder = std::thread([this, gp = g.get()] { feed(*gp); });
  }

  std::uint64_t done() const override {
    std::uint64_t n = 0;
    for (const auto& g : gpus_) n += g->done.load(std::memory_order_relaxed);
    return n;
  }

  void stop() override {
    stop_.store(true);
    for (auto& g : gpus_)
      if (g->feeder.joinable()) g->feeder.join();
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_.empty()) throw EnvironmentError("the --beside background load: " + error_);
  }

  std::string timing() const override { return "gpu"; }
  double item_us() const override { return item_us_; }

 private:
  void launch_item(GpuSide& g, std::uint64_t i) {
    const bool fma = kind_ == BesideKind::fma || (kind_ == BesideKind::compute && i % 2 == 0);
    if (fma) {
      beside::launch_fma(g.sms, g.fma_iters, g.sink, g.stream);
    } else {
      beside::launch_memory(g.sms, g.buf, g.n16, g.at, g.mem_count, g.sink, g.stream);
      g.at = (g.at + g.mem_count) % g.n16;
    }
  }

  // Keeps kInFlight kernels queued on the GPU's stream until stop(), counting those that finished;
  // then drains. A kernel that does not finish within the bound is an error (a hung GPU).
  void feed(GpuSide& g) {
    try {
      ARB_CUDA_CHECK(cudaSetDevice(g.device));
      std::vector<cudaEvent_t> pool(kInFlight);
      for (auto& e : pool) ARB_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      std::deque<cudaEvent_t> queued;
      std::uint64_t i = 0;
      Clock::time_point progress = Clock::now();
      while (!(stop_.load() && queued.empty())) {
        if (!stop_.load() && queued.size() < kInFlight) {
          cudaEvent_t e = pool[i % kInFlight];
          launch_item(g, i++);
          ARB_CUDA_CHECK(cudaEventRecord(e, g.stream));
          queued.push_back(e);
          continue;
        }
        const cudaError_t q = cudaEventQuery(queued.front());
        if (q == cudaSuccess) {
          queued.pop_front();
          g.done.fetch_add(1, std::memory_order_relaxed);
          progress = Clock::now();
          continue;
        }
        if (q != cudaErrorNotReady) ARB_CUDA_CHECK(q);
        if (seconds_since(progress) > bound_s_)
          throw EnvironmentError("GPU " + std::to_string(g.device) + ": a background kernel did not finish within " +
                                 std::to_string(bound_s_) + " s");
        std::this_thread::sleep_for(std::chrono::microseconds(5));
      }
      for (auto& e : pool) ARB_CUDA_CHECK(cudaEventDestroy(e));
    } catch (const std::exception& ex) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (error_.empty()) error_ = ex.what();
    }
  }

  // One kernel's time alone, microseconds (the best of three), on g's stream.
  double time_us(GpuSide& g, bool fma) {
    cudaEvent_t a, b;
    ARB_CUDA_CHECK(cudaEventCreate(&a));
    ARB_CUDA_CHECK(cudaEventCreate(&b));
    float best = 1e30f;
    for (int k = 0; k < 3; ++k) {
      ARB_CUDA_CHECK(cudaEventRecord(a, g.stream));
      if (fma)
        beside::launch_fma(g.sms, g.fma_iters, g.sink, g.stream);
      else
        beside::launch_memory(g.sms, g.buf, g.n16, 0, g.mem_count, g.sink, g.stream);
      ARB_CUDA_CHECK(cudaEventRecord(b, g.stream));
      if (!wait_event(b, bound_s_))
        throw EnvironmentError("GPU " + std::to_string(g.device) + ": calibrating the --beside load, a kernel did not "
                               "finish within " + std::to_string(bound_s_) + " s");
      float ms = 0;
      ARB_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
      best = std::min(best, ms);
    }
    ARB_CUDA_CHECK(cudaEventDestroy(a));
    ARB_CUDA_CHECK(cudaEventDestroy(b));
    return std::max(double(best) * 1000.0, 1e-3);
  }

  // Sizes each kind's kernel to kBesideItemTargetUs from a trial (the first launch warms up).
  void calibrate(GpuSide& g) {
    g.fma_iters = 2048;
    g.mem_count = std::size_t(g.sms) * beside::kBlocksPerSm * beside::kThreads * 16;
    (void)time_us(g, true);
    const double fma_us = time_us(g, true), mem_us = time_us(g, false);
    g.fma_iters = std::max(1, int(double(g.fma_iters) * kBesideItemTargetUs / fma_us));
    g.mem_count = std::clamp<std::size_t>(std::size_t(double(g.mem_count) * kBesideItemTargetUs / mem_us), 1, g.n16);
    const double f = time_us(g, true), m = time_us(g, false);
    const double item = kind_ == BesideKind::fma ? f : kind_ == BesideKind::memory ? m : (f + m) / 2;
    item_us_ = std::max(item_us_, item);
  }

  const BesideKind kind_;
  const double bound_s_;
  std::vector<std::unique_ptr<GpuSide>> gpus_;
  std::atomic<bool> stop_{false};
  double item_us_ = 0;
  std::mutex error_mutex_;
  std::string error_;
};

}  // namespace

std::unique_ptr<BesideLoad> make_gpu_beside_load(const std::vector<int>& devices, BesideKind kind, double bound_s) {
  int current = 0;
  ARB_CUDA_CHECK(cudaGetDevice(&current));
  auto load = std::make_unique<GpuBesideLoad>(devices, kind, bound_s);
  ARB_CUDA_CHECK(cudaSetDevice(current));
  return load;
}

std::unique_ptr<BesideLoad> make_beside_load(Fabric& f, BesideKind kind) {
  if (f.backend() == Backend::host) return make_host_beside_load(f, kind);
  std::set<int> devices;
  for (int r = 0; r < f.world(); ++r)
    if (f.drives(r)) devices.insert(f.device_of(r));
  return make_gpu_beside_load({devices.begin(), devices.end()}, kind, f.timeout_s());
}

}  // namespace arbench
