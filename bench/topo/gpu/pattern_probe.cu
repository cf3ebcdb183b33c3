// The pattern probe; what it measures and its bounds: pattern_probe.hpp. It reuses the probes'
// machinery (probe_device.cuh: ProbeDevice, PeerAccess, HostGate, the flag ping-pong;
// probe_kernels.cuh: the gate kernel and the fan-out copy kernel with its per-peer timestamps).
#include <cuda_runtime.h>

#include <chrono>
#include <functional>
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
// then pulled by it from each peer), per-flow timestamps, the gate's verdict, and a stream and an
// end event per copy-engine flow it drives.
struct PatternDevice {
  ProbeDevice dev;
  unsigned long long* stamps = nullptr;  // [0, kMaxFanout): first ns per job entry; then last ns
  unsigned* gate_timed_out = nullptr;
  cudaEvent_t probe_done = nullptr;
  std::vector<cudaStream_t> flow_stream;
  std::vector<cudaEvent_t> flow_done;

  PatternDevice(const CudaGpu& g, std::size_t bytes, std::size_t n) : dev(g, bytes, 2 * (n - 1)) {
    ARB_CUDA_CHECK(cudaMalloc(&stamps, 2 * kMaxFanout * sizeof(unsigned long long)));
    ARB_CUDA_CHECK(cudaMalloc(&gate_timed_out, sizeof(unsigned)));
    ARB_CUDA_CHECK(cudaEventCreate(&probe_done));
  }
  ~PatternDevice() {
    cudaSetDevice(dev.ordinal);
    for (cudaEvent_t e : flow_done) cudaEventDestroy(e);
    for (cudaStream_t s : flow_stream) cudaStreamDestroy(s);
    cudaEventDestroy(probe_done);
    cudaFree(gate_timed_out);
    cudaFree(stamps);
  }
  // At least k copy-engine streams (the current device is this one).
  void ensure_flows(std::size_t k) {
    while (flow_stream.size() < k) {
      flow_stream.push_back(nullptr);
      flow_done.push_back(nullptr);
      ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&flow_stream.back(), cudaStreamNonBlocking));
      ARB_CUDA_CHECK(cudaEventCreate(&flow_done.back()));
    }
  }
  PatternDevice(const PatternDevice&) = delete;
  PatternDevice& operator=(const PatternDevice&) = delete;
};

// A flow as the GPU that drives it sees it: where from, where to, which flow of the pattern.
struct DrivenFlow {
  uint4* dst;
  const uint4* src;
  int dst_ordinal, src_ordinal;
  std::size_t flow;
};

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
    if (opt_.copy_engine) r.ce_gbps.resize(p.flows.size());
    if (opt_.latency_rounds > 0) {
      r.latency_us.resize(p.latency_pairs.size());
      r.idle_latency_us.resize(p.latency_pairs.size());
    }
    std::vector<std::vector<DrivenFlow>> driven(n_);  // per driving GPU, at most kMaxFanout
    for (std::size_t f = 0; f < p.flows.size(); ++f) {
      const Flow& fl = p.flows[f];
      const auto from = std::size_t(fl.from), to = std::size_t(fl.to);
      if (fl.from < 0 || fl.to < 0 || from >= n_ || to >= n_ || from == to) continue;
      const std::size_t driver = fl.pull ? to : from;
      const bool access = fl.pull ? peers_->ok[to][from] : peers_->ok[from][to];
      if (!access || driven[driver].size() >= std::size_t(kMaxFanout)) continue;
      const std::size_t landing = (fl.pull ? n_ - 1 : 0) + slot(to, from);
      driven[driver].push_back({dev_[to]->dev.b + landing * packs_, dev_[from]->dev.a, dev_[to]->dev.ordinal,
                                dev_[from]->dev.ordinal, f});
    }
    bool any = false;
    for (const auto& d : driven) any = any || !d.empty();
    if (!any) {
      r.skipped = "no flow of the pattern has P2P access (cudaDeviceCanAccessPeer)";
      return r;
    }
    if (const std::string why = sm_copies(driven, &r); !why.empty()) {
      r.skipped = why;
      return r;
    }
    if (opt_.copy_engine)
      if (const std::string why = ce_copies(driven, &r); !why.empty()) r.notes.push_back("copy engines: " + why);
    for (std::size_t k = 0; k < r.latency_us.size(); ++k) latency(driven, p.latency_pairs[k], &r, k);
    return r;
  }

 private:
  using Work = std::function<void(std::size_t g, int reps)>;

  // SM copies: one fan-out kernel per driving GPU; each flow's time from its blocks' stamps.
  std::string sm_copies(const std::vector<std::vector<DrivenFlow>>& driven, PatternResult* r) {
    auto work = [&](std::size_t g, int reps) {
      if (driven[g].empty()) return;
      PatternDevice& d = *dev_[g];
      FanoutJob job;
      for (const auto& f : driven[g]) {
        job.dst[job.peers] = f.dst;
        job.src[job.peers] = f.src;
        ++job.peers;
      }
      job.reps = reps;
      job.packs = packs_;
      ARB_CUDA_CHECK(cudaMemsetAsync(d.stamps, 0xff, kMaxFanout * sizeof(unsigned long long), d.dev.stream));
      ARB_CUDA_CHECK(cudaMemsetAsync(d.stamps + kMaxFanout, 0, kMaxFanout * sizeof(unsigned long long), d.dev.stream));
      fanout_copy_kernel<<<std::max(d.dev.blocks, job.peers), kCopyThreads, 0, d.dev.stream>>>(job, d.stamps,
                                                                                           d.stamps + kMaxFanout);
      ARB_CUDA_CHECK(cudaGetLastError());
    };
    for (int reps : {1, opt_.repetitions})
      if (const std::string why = episode(work, reps, nullptr); !why.empty()) return why;
    for (std::size_t g = 0; g < n_; ++g) {
      if (driven[g].empty()) continue;
      unsigned long long stamps[2 * kMaxFanout];
      PatternDevice& d = *dev_[g];
      ARB_CUDA_CHECK(cudaSetDevice(d.dev.ordinal));
      ARB_CUDA_CHECK(cudaMemcpyAsync(stamps, d.stamps, sizeof stamps, cudaMemcpyDeviceToHost, d.dev.stream));
      finish(d.dev.stream, d.dev.ordinal);
      for (std::size_t q = 0; q < driven[g].size(); ++q)
        if (stamps[kMaxFanout + q] > stamps[q])
          r->gbps[driven[g][q].flow] = double(packs_ * sizeof(uint4)) * opt_.repetitions /
                                       double(stamps[kMaxFanout + q] - stamps[q]);  // bytes per ns = GB/s
    }
    return {};
  }

  // GPU g's copy-engine share: every flow it drives on a stream of its own from the start event.
  void enqueue_ce(std::size_t g, int reps, const std::vector<DrivenFlow>& flows) {
    PatternDevice& d = *dev_[g];
    d.ensure_flows(flows.size());
    for (std::size_t q = 0; q < flows.size(); ++q) {
      cudaStream_t s = d.flow_stream[q];
      ARB_CUDA_CHECK(cudaStreamWaitEvent(s, d.dev.start, 0));
      for (int k = 0; k < reps; ++k)
        ARB_CUDA_CHECK(cudaMemcpyPeerAsync(flows[q].dst, flows[q].dst_ordinal, flows[q].src, flows[q].src_ordinal,
                                           packs_ * sizeof(uint4), s));
      ARB_CUDA_CHECK(cudaEventRecord(d.flow_done[q], s));
      ARB_CUDA_CHECK(cudaStreamWaitEvent(d.dev.stream, d.flow_done[q], 0));  // stop comes after every flow
    }
  }

  std::string ce_copies(const std::vector<std::vector<DrivenFlow>>& driven, PatternResult* r) {
    auto work = [&](std::size_t g, int reps) { enqueue_ce(g, reps, driven[g]); };
    for (int reps : {1, opt_.repetitions})
      if (const std::string why = episode(work, reps, nullptr); !why.empty()) return why;
    for (std::size_t g = 0; g < n_; ++g)
      for (std::size_t q = 0; q < driven[g].size(); ++q) {
        const double ms = elapsed_ms(dev_[g]->dev.start, dev_[g]->flow_done[q]);
        if (ms > 0) r->ce_gbps[driven[g][q].flow] = double(packs_ * sizeof(uint4)) * opt_.repetitions / (ms * 1e6);
      }
    return {};
  }

  // The one-way latency x -> y with nothing else running (the floor's hop: a small message's own
  // flags cross idle links), then while the pattern's copy-engine load runs (probe_loaded.cu's
  // method).
  void latency(const std::vector<std::vector<DrivenFlow>>& driven, std::pair<int, int> pair, PatternResult* r,
               std::size_t k) {
    const auto [x, y] = pair;
    const std::string name = pair_name(std::size_t(x), std::size_t(y));
    if (x < 0 || y < 0 || std::size_t(x) >= n_ || std::size_t(y) >= n_ || x == y ||
        !peers_->ok[std::size_t(x)][std::size_t(y)] || !peers_->ok[std::size_t(y)][std::size_t(x)]) {
      r->notes.push_back("latency " + name + ": no P2P access both ways (cudaDeviceCanAccessPeer)");
      return;
    }
    ProbeDevice &dx = dev_[std::size_t(x)]->dev, &dy = dev_[std::size_t(y)]->dev;
    const PingPongSides sides{&dx, &dy, dx.flags, dy.flags, dx.stream2, dy.stream2};
    ProbeOptions ping;
    ping.latency_rounds = opt_.latency_rounds;
    ping.wait_timeout_s = opt_.wait_timeout_s;
    reset_pingpong(sides);
    launch_pingpong(sides, ping);
    finish(dx.stream2, dx.ordinal);
    finish(dy.stream2, dy.ordinal);
    std::string idle_why;
    if (const auto us = pingpong_one_way_us(sides, ping, &idle_why)) r->idle_latency_us[k] = us;
    else r->notes.push_back("idle latency " + name + ": " + idle_why);
    reset_pingpong(sides);
    auto extra = [&] {
      for (ProbeDevice* d : {&dx, &dy}) {
        ARB_CUDA_CHECK(cudaSetDevice(d->ordinal));
        ARB_CUDA_CHECK(cudaStreamWaitEvent(d->stream2, d->start, 0));
      }
      launch_pingpong(sides, ping);
      for (int g : {x, y}) {
        ARB_CUDA_CHECK(cudaSetDevice(dev_[std::size_t(g)]->dev.ordinal));
        ARB_CUDA_CHECK(cudaEventRecord(dev_[std::size_t(g)]->probe_done, dev_[std::size_t(g)]->dev.stream2));
      }
    };
    auto load = [&](std::size_t g, int reps) { enqueue_ce(g, reps, driven[g]); };
    if (const std::string why = episode(load, opt_.repetitions, extra); !why.empty()) {
      r->notes.push_back("latency " + name + ": " + why);
      return;
    }
    bool covered = true;
    for (int g : {x, y}) {
      const PatternDevice& d = *dev_[std::size_t(g)];
      covered = covered && elapsed_ms(d.dev.start, d.probe_done) <= elapsed_ms(d.dev.start, d.dev.stop);
    }
    std::string why;
    const auto us = pingpong_one_way_us(sides, ping, &why);
    if (!us) r->notes.push_back("latency " + name + ": " + why);
    else if (!covered) r->notes.push_back("latency " + name + ": the load ended before the ping-pong did");
    else r->latency_us[k] = us;
  }

  // Waits (bounded) for a probe stream; a GPU that does not finish leaves the process.
  void finish(cudaStream_t s, int ordinal) {
    ARB_CUDA_CHECK(cudaSetDevice(ordinal));
    if (wait_stream(s, deadline_in(opt_.wait_timeout_s))) return;
    stuck_ = true;
    throw EnvironmentError("the pattern probe's copies on CUDA device " + std::to_string(ordinal) +
                           " did not finish within " + std::to_string(opt_.wait_timeout_s) +
                           " s: a peer-to-peer path is stuck (run `arbench topo --no-measure` to check the pairs); "
                           "this process must end to free the GPUs");
  }

  // One episode: gates and start events, every GPU's work and stop event, `extra` (a ping-pong),
  // the gate opened, every GPU waited for. Returns why it failed (a gate that timed out), or "".
  std::string episode(const Work& work, int reps, const std::function<void()>& extra) {
    gate_->set(0);
    const auto gate_ns = static_cast<unsigned long long>(opt_.wait_timeout_s * 1e9);
    for (std::size_t g = 0; g < n_; ++g) {
      PatternDevice& d = *dev_[g];
      ARB_CUDA_CHECK(cudaSetDevice(d.dev.ordinal));
      ARB_CUDA_CHECK(cudaMemsetAsync(d.gate_timed_out, 0, sizeof(unsigned), d.dev.stream));
      gate_kernel<<<1, 1, 0, d.dev.stream>>>(gate_->device_word, gate_ns, d.gate_timed_out);
      ARB_CUDA_CHECK(cudaGetLastError());
      ARB_CUDA_CHECK(cudaEventRecord(d.dev.start, d.dev.stream));
      work(g, reps);
      ARB_CUDA_CHECK(cudaEventRecord(d.dev.stop, d.dev.stream));
    }
    if (extra) extra();
    gate_->set(1);
    bool timed_out = false;
    for (auto& d : dev_) {
      unsigned flag = 0;
      finish(d->dev.stream, d->dev.ordinal);
      finish(d->dev.stream2, d->dev.ordinal);
      ARB_CUDA_CHECK(cudaMemcpyAsync(&flag, d->gate_timed_out, sizeof flag, cudaMemcpyDeviceToHost, d->dev.stream));
      finish(d->dev.stream, d->dev.ordinal);
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
  auto none = [](const Pattern& p, std::string why) {
    return PatternResult{p.name, std::vector<std::optional<double>>(p.flows.size()), std::move(why)};
  };
  if (gpus.size() < 2) {
    for (const auto& p : patterns) out.push_back(none(p, "fewer than 2 GPUs: no flow between GPUs"));
    return out;
  }
  PatternRunner runner(gpus, opt);
  const auto start = std::chrono::steady_clock::now();
  for (const auto& p : patterns) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent > opt.budget_s) {
      out.push_back(none(p, "the probe's time budget (" + std::to_string(opt.budget_s) + " s) was spent before this pattern"));
      continue;
    }
    out.push_back(runner.run(p));
  }
  return out;
}

}  // namespace arbench::topo
