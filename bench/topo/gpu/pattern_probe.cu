// The pattern probe; what it measures and its bounds: pattern_probe.hpp. It reuses the probes'
// machinery (probe_device.cuh: ProbeDevice, PeerAccess, HostGate; probe_kernels.cuh: the gate
// kernel and the fan-out copy kernel with its per-peer timestamps).
#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/cuda/stream_wait.hpp"
#include "topo/gpu/pattern_probe.hpp"
#include "topo/gpu/probe_device.cuh"

namespace arbench::topo {
namespace {

using namespace probe;

// One GPU's resources: the probe device with 2(N-1) landing slots (pushed into it by each peer,
// then pulled by it from each peer), per-flow timestamps and the gate's verdict.
struct PatternDevice {
  ProbeDevice dev;
  unsigned long long* stamps = nullptr;  // [0, kMaxFanout): first ns per job entry; then last ns
  unsigned* gate_timed_out = nullptr;

  PatternDevice(const CudaGpu& g, std::size_t bytes, std::size_t n) : dev(g, bytes, 2 * (n - 1)) {
    ARB_CUDA_CHECK(cudaMalloc(&stamps, 2 * kMaxFanout * sizeof(unsigned long long)));
    ARB_CUDA_CHECK(cudaMalloc(&gate_timed_out, sizeof(unsigned)));
  }
  ~PatternDevice() {
    cudaSetDevice(dev.ordinal);
    cudaFree(gate_timed_out);
    cudaFree(stamps);
  }
  PatternDevice(const PatternDevice&) = delete;
  PatternDevice& operator=(const PatternDevice&) = delete;
};

std::size_t slot(std::size_t g, std::size_t p) { return p < g ? p : p - 1; }

class PatternRunner {
 public:
  PatternRunner(const std::vector<CudaGpu>& gpus, const PatternProbeOptions& opt)
      : n_(gpus.size()), opt_(opt), packs_(std::max<std::size_t>(1, opt.bytes / sizeof(uint4))),
        peers_(std::make_unique<PeerAccess>(gpus)), gate_(std::make_unique<HostGate>()) {
    for (const auto& g : gpus) dev_.push_back(std::make_unique<PatternDevice>(g, packs_ * sizeof(uint4), n_));
  }
  ~PatternRunner() {
    if (!stuck_) return;
    // GPU work still runs: freeing what it uses would wait for it. Left to the driver at exit.
    for (auto& d : dev_) (void)d.release();
    (void)peers_.release();
    (void)gate_.release();
  }
  PatternRunner(const PatternRunner&) = delete;
  PatternRunner& operator=(const PatternRunner&) = delete;

  PatternResult run(const Pattern& p) {
    PatternResult r{p.name, std::vector<std::optional<double>>(p.flows.size()), std::nullopt};
    std::vector<FanoutJob> jobs(n_);
    std::vector<std::vector<std::size_t>> flow_of(n_);  // per driving GPU: job entry -> flow index
    for (std::size_t f = 0; f < p.flows.size(); ++f) {
      const Flow& fl = p.flows[f];
      const auto from = std::size_t(fl.from), to = std::size_t(fl.to);
      if (fl.from < 0 || fl.to < 0 || from >= n_ || to >= n_ || from == to) continue;
      const std::size_t driver = fl.pull ? to : from;
      const bool access = fl.pull ? peers_->ok[to][from] : peers_->ok[from][to];
      FanoutJob& job = jobs[driver];
      if (!access || job.peers >= kMaxFanout) continue;
      const std::size_t landing = (fl.pull ? n_ - 1 : 0) + slot(to, from);
      job.dst[job.peers] = dev_[to]->dev.b + landing * packs_;
      job.src[job.peers] = dev_[from]->dev.a;
      ++job.peers;
      flow_of[driver].push_back(f);
    }
    bool any = false;
    for (const auto& j : jobs) any = any || j.peers > 0;
    if (!any) {
      r.skipped = "no flow of the pattern has P2P access (cudaDeviceCanAccessPeer)";
      return r;
    }
    for (int reps : {1, opt_.repetitions}) {
      if (const std::string why = episode(jobs, reps); !why.empty()) {
        r.skipped = why;
        return r;
      }
    }
    for (std::size_t g = 0; g < n_; ++g) {
      if (flow_of[g].empty()) continue;
      unsigned long long stamps[2 * kMaxFanout];
      PatternDevice& d = *dev_[g];
      ARB_CUDA_CHECK(cudaSetDevice(d.dev.ordinal));
      ARB_CUDA_CHECK(cudaMemcpyAsync(stamps, d.stamps, sizeof stamps, cudaMemcpyDeviceToHost, d.dev.stream));
      finish(d);
      for (std::size_t q = 0; q < flow_of[g].size(); ++q)
        if (stamps[kMaxFanout + q] > stamps[q])
          r.gbps[flow_of[g][q]] = double(packs_ * sizeof(uint4)) * opt_.repetitions /
                                  double(stamps[kMaxFanout + q] - stamps[q]);  // bytes per ns = GB/s
    }
    return r;
  }

 private:
  // Waits (bounded) for the GPU's probe stream; a GPU that does not finish leaves the process.
  void finish(PatternDevice& d) {
    ARB_CUDA_CHECK(cudaSetDevice(d.dev.ordinal));
    if (wait_stream(d.dev.stream, deadline_in(opt_.wait_timeout_s))) return;
    stuck_ = true;
    throw EnvironmentError("the pattern probe's copies on CUDA device " + std::to_string(d.dev.ordinal) +
                           " did not finish within " + std::to_string(opt_.wait_timeout_s) +
                           " s: a peer-to-peer path is stuck (run `arbench topo --no-measure` to check the pairs); "
                           "this process must end to free the GPUs");
  }

  // One episode: gates, every GPU's copies, the gate opened, every GPU waited for. Returns why it
  // failed (a gate that timed out), or "".
  std::string episode(const std::vector<FanoutJob>& jobs, int reps) {
    gate_->set(0);
    const auto gate_ns = static_cast<unsigned long long>(opt_.wait_timeout_s * 1e9);
    for (std::size_t g = 0; g < n_; ++g) {
      PatternDevice& d = *dev_[g];
      ARB_CUDA_CHECK(cudaSetDevice(d.dev.ordinal));
      ARB_CUDA_CHECK(cudaMemsetAsync(d.stamps, 0xff, kMaxFanout * sizeof(unsigned long long), d.dev.stream));
      ARB_CUDA_CHECK(cudaMemsetAsync(d.stamps + kMaxFanout, 0, kMaxFanout * sizeof(unsigned long long), d.dev.stream));
      ARB_CUDA_CHECK(cudaMemsetAsync(d.gate_timed_out, 0, sizeof(unsigned), d.dev.stream));
      gate_kernel<<<1, 1, 0, d.dev.stream>>>(gate_->device_word, gate_ns, d.gate_timed_out);
      ARB_CUDA_CHECK(cudaGetLastError());
      if (jobs[g].peers == 0) continue;
      FanoutJob job = jobs[g];
      job.reps = reps;
      job.packs = packs_;
      fanout_copy_kernel<<<std::max(d.dev.blocks, job.peers), kCopyThreads, 0, d.dev.stream>>>(job, d.stamps,
                                                                                             d.stamps + kMaxFanout);
      ARB_CUDA_CHECK(cudaGetLastError());
    }
    gate_->set(1);
    bool timed_out = false;
    for (auto& d : dev_) {
      unsigned flag = 0;
      finish(*d);
      ARB_CUDA_CHECK(cudaMemcpyAsync(&flag, d->gate_timed_out, sizeof flag, cudaMemcpyDeviceToHost, d->dev.stream));
      finish(*d);
      timed_out = timed_out || flag != 0;
    }
    return timed_out ? "a GPU's start gate timed out after " + std::to_string(opt_.wait_timeout_s) +
                           " s: the GPUs did not start together"
                     : std::string();
  }

  std::size_t n_;
  PatternProbeOptions opt_;
  std::size_t packs_;
  std::unique_ptr<PeerAccess> peers_;
  std::unique_ptr<HostGate> gate_;
  std::vector<std::unique_ptr<PatternDevice>> dev_;
  bool stuck_ = false;
};

}  // namespace

std::vector<PatternResult> run_pattern_probe(const std::vector<CudaGpu>& gpus, const std::vector<Pattern>& patterns,
                                             const PatternProbeOptions& opt) {
  std::vector<PatternResult> out;
  if (gpus.size() < 2) {
    for (const auto& p : patterns) out.push_back({p.name, std::vector<std::optional<double>>(p.flows.size()),
                                                  "fewer than 2 GPUs: no flow between GPUs"});
    return out;
  }
  PatternRunner runner(gpus, opt);
  const auto start = std::chrono::steady_clock::now();
  for (const auto& p : patterns) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent > opt.budget_s) {
      out.push_back({p.name, std::vector<std::optional<double>>(p.flows.size()),
                     "the probe's time budget (" + std::to_string(opt.budget_s) + " s) was spent before this pattern"});
      continue;
    }
    out.push_back(runner.run(p));
  }
  return out;
}

}  // namespace arbench::topo
