// Loaded links: every GPU moves data over all of its links at once (the traffic of a one-shot
// push or pull all-reduce), with the copy engines and with SM kernels, and the flag ping-pong
// latency while that load runs. What the numbers mean and how they are reported: loaded.hpp.
//
// Method. Each pattern is one episode: every GPU's work is enqueued behind a gate kernel that
// spins (bounded by %globaltimer) on a pinned host word; once everything is enqueued the host
// opens the gate and all GPUs start together. GPU g's time runs from its start event (after
// the gate) to its stop event (after all its links). A copy-engine link's time ends at an event
// on the link's own stream; an SM link's time is its blocks' first-to-last %globaltimer stamp.
// One untimed episode with a single repetition warms every link first.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "topo/gpu/probe.hpp"
#include "topo/gpu/probe_device.cuh"

namespace arbench::topo {
namespace {

using namespace probe;

// One GPU's resources for the loaded probes: the probe device with a landing slot per peer,
// a stream and an end event per peer (copy engines), SM timestamps and the gate's verdict.
struct LoadedDevice {
  ProbeDevice dev;
  std::vector<cudaStream_t> link_stream;
  std::vector<cudaEvent_t> link_done;
  cudaEvent_t probe_done = nullptr;
  unsigned long long* stamps = nullptr;  // [0, kMaxFanout): first ns per peer; then last ns
  unsigned* gate_timed_out = nullptr;

  LoadedDevice(const CudaGpu& g, std::size_t bytes, std::size_t n) : dev(g, bytes, n - 1) {
    link_stream.resize(n - 1);
    link_done.resize(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) {
      ARB_CUDA_CHECK(cudaStreamCreateWithFlags(&link_stream[k], cudaStreamNonBlocking));
      ARB_CUDA_CHECK(cudaEventCreate(&link_done[k]));
    }
    ARB_CUDA_CHECK(cudaEventCreate(&probe_done));
    ARB_CUDA_CHECK(cudaMalloc(&stamps, 2 * kMaxFanout * sizeof(unsigned long long)));
    ARB_CUDA_CHECK(cudaMalloc(&gate_timed_out, sizeof(unsigned)));
  }
  ~LoadedDevice() {
    cudaSetDevice(dev.ordinal);
    cudaFree(gate_timed_out);
    cudaFree(stamps);
    cudaEventDestroy(probe_done);
    for (cudaEvent_t e : link_done) cudaEventDestroy(e);
    for (cudaStream_t s : link_stream) cudaStreamDestroy(s);
  }
  LoadedDevice(const LoadedDevice&) = delete;
  LoadedDevice& operator=(const LoadedDevice&) = delete;
};

class LoadedProbe {
 public:
  LoadedProbe(const std::vector<CudaGpu>& gpus, const ProbeOptions& opt)
      : n_(gpus.size()), opt_(opt), packs_(std::max<std::size_t>(1, opt.bytes / sizeof(uint4))),
        bytes_(packs_ * sizeof(uint4)), peers_(gpus) {
    for (const auto& g : gpus) dev_.push_back(std::make_unique<LoadedDevice>(g, bytes_, n_));
  }

  // Copy engines: GPU g issues one cudaMemcpyPeerAsync stream per peer (to it: push; from it: pull).
  LoadedTimes copy_engines(bool pull) {
    auto work = [this, pull](std::size_t g, int reps) { ce_work(g, reps, pull); };
    LoadedTimes t = blank();
    if (!warm_and_time(work, &t)) return t;
    for (std::size_t g = 0; g < n_; ++g)
      for (std::size_t p = 0; p < n_; ++p)
        if (p != g) {
          const double ms = elapsed_ms(dev_[g]->dev.start, dev_[g]->link_done[slot(g, p)]);
          (pull ? t.link_ms[p][g] : t.link_ms[g][p]) = ms;
        }
    return t;
  }

  // SM: one fan-out kernel per GPU, its blocks split among the peers it can address.
  LoadedTimes sm_kernels(bool pull) {
    LoadedTimes t = blank();
    if (n_ - 1 > static_cast<std::size_t>(kMaxFanout)) {
      t.skipped = "more than " + std::to_string(kMaxFanout + 1) + " GPUs: one fan-out kernel serves at most " +
                  std::to_string(kMaxFanout) + " peers";
      return t;
    }
    std::vector<std::vector<std::size_t>> served(n_);  // job index -> peer, per GPU
    for (std::size_t g = 0; g < n_; ++g)
      for (std::size_t p = 0; p < n_; ++p) {
        if (p == g) continue;
        if (peers_.ok[g][p]) served[g].push_back(p);
        else t.notes.push_back(pair_name(pull ? p : g, pull ? g : p) + ": no P2P access (cudaDeviceCanAccessPeer)");
      }
    auto work = [this, pull, &served](std::size_t g, int reps) {
      LoadedDevice& me = *dev_[g];
      if (served[g].empty()) return;
      FanoutJob job;
      job.peers = static_cast<int>(served[g].size());
      job.reps = reps;
      job.packs = packs_;
      for (std::size_t q = 0; q < served[g].size(); ++q) {
        const std::size_t p = served[g][q];
        LoadedDevice& peer = *dev_[p];
        job.dst[q] = pull ? me.dev.b + slot(g, p) * packs_ : peer.dev.b + slot(p, g) * packs_;
        job.src[q] = pull ? peer.dev.a : me.dev.a;
      }
      fanout_copy_kernel<<<std::max(me.dev.blocks, job.peers), kCopyThreads, 0, me.dev.stream>>>(
          job, me.stamps, me.stamps + kMaxFanout);
      ARB_CUDA_CHECK(cudaGetLastError());
    };
    if (!warm_and_time(work, &t, /*reset_stamps=*/true)) return t;
    for (std::size_t g = 0; g < n_; ++g) {
      unsigned long long stamps[2 * kMaxFanout];
      ARB_CUDA_CHECK(cudaSetDevice(dev_[g]->dev.ordinal));
      ARB_CUDA_CHECK(cudaMemcpyAsync(stamps, dev_[g]->stamps, sizeof stamps, cudaMemcpyDeviceToHost, dev_[g]->dev.stream));
      ARB_CUDA_CHECK(cudaStreamSynchronize(dev_[g]->dev.stream));
      for (std::size_t q = 0; q < served[g].size(); ++q) {
        const std::size_t p = served[g][q];
        if (stamps[kMaxFanout + q] > stamps[q])
          (pull ? t.link_ms[p][g] : t.link_ms[g][p]) = static_cast<double>(stamps[kMaxFanout + q] - stamps[q]) / 1e6;
      }
    }
    return t;
  }

  // One-way latency x -> y for every ordered pair, each while the copy-engine push load runs.
  LinkMatrix latency_under_load(std::string method) {
    LinkMatrix m = empty_matrix(n_, std::move(method), "us", sizeof(unsigned), opt_.latency_rounds);
    for (std::size_t x = 0; x < n_; ++x)
      for (std::size_t y = 0; y < n_; ++y) {
        if (x == y) continue;
        if (!peers_.ok[x][y] || !peers_.ok[y][x]) {
          m.notes.push_back(pair_name(x, y) + ": no P2P access (cudaDeviceCanAccessPeer) both ways");
          continue;
        }
        ProbeDevice &dx = dev_[x]->dev, &dy = dev_[y]->dev;
        const PingPongSides sides{&dx, &dy, dx.flags, dy.flags, dx.stream2, dy.stream2};
        reset_pingpong(sides);
        auto load = [this](std::size_t g, int reps) { ce_work(g, reps, /*pull=*/false); };
        auto probe = [&] {
          for (ProbeDevice* d : {&dx, &dy}) {
            ARB_CUDA_CHECK(cudaSetDevice(d->ordinal));
            ARB_CUDA_CHECK(cudaStreamWaitEvent(d->stream2, d->start, 0));
          }
          launch_pingpong(sides, opt_);
          for (std::size_t g : {x, y}) {
            ARB_CUDA_CHECK(cudaSetDevice(dev_[g]->dev.ordinal));
            ARB_CUDA_CHECK(cudaEventRecord(dev_[g]->probe_done, dev_[g]->dev.stream2));
          }
        };
        std::string why;
        if (!gated(load, opt_.repetitions, probe, &why)) {
          m.notes.push_back(pair_name(x, y) + ": " + why);
          continue;
        }
        bool covered = true;
        for (std::size_t g : {x, y}) {
          const LoadedDevice& d = *dev_[g];
          covered = covered && elapsed_ms(d.dev.start, d.probe_done) <= elapsed_ms(d.dev.start, d.dev.stop);
        }
        auto us = pingpong_one_way_us(sides, opt_, &why);
        if (!us) m.notes.push_back(pair_name(x, y) + ": " + why);
        else if (!covered)
          m.notes.push_back(pair_name(x, y) + ": the load ended before the ping-pong did (raise --reps or lower "
                                              "--latency-rounds)");
        else m.values[x][y] = us;
      }
    return m;
  }

 private:
  using Work = std::function<void(std::size_t, int)>;

  // GPU g's copy-engine share of an episode: `reps` copies per peer on that peer's stream, from
  // its start event; push writes into the peer's landing slot for g, pull reads the peer's data.
  void ce_work(std::size_t g, int reps, bool pull) {
    LoadedDevice& me = *dev_[g];
    for (std::size_t p = 0; p < n_; ++p) {
      if (p == g) continue;
      const std::size_t k = slot(g, p);
      LoadedDevice& peer = *dev_[p];
      cudaStream_t s = me.link_stream[k];
      ARB_CUDA_CHECK(cudaStreamWaitEvent(s, me.dev.start, 0));
      for (int r = 0; r < reps; ++r) {
        if (pull)
          ARB_CUDA_CHECK(
              cudaMemcpyPeerAsync(me.dev.b + k * packs_, me.dev.ordinal, peer.dev.a, peer.dev.ordinal, bytes_, s));
        else
          ARB_CUDA_CHECK(cudaMemcpyPeerAsync(peer.dev.b + slot(p, g) * packs_, peer.dev.ordinal, me.dev.a,
                                             me.dev.ordinal, bytes_, s));
      }
      ARB_CUDA_CHECK(cudaEventRecord(me.link_done[k], s));
      ARB_CUDA_CHECK(cudaStreamWaitEvent(me.dev.stream, me.link_done[k], 0));
    }
  }

  LoadedTimes blank() const {
    LoadedTimes t;
    t.link_ms.assign(n_, std::vector<std::optional<double>>(n_));
    t.gpu_ms.assign(n_, std::nullopt);
    return t;
  }

  // Warm-up episode (one repetition), then the timed one; fills gpu_ms. False: t->skipped says why.
  bool warm_and_time(const Work& work, LoadedTimes* t, bool reset_stamps = false) {
    std::string why;
    for (int reps : {1, opt_.repetitions}) {
      if (reset_stamps)
        for (auto& d : dev_) {
          ARB_CUDA_CHECK(cudaSetDevice(d->dev.ordinal));
          // on the stream the timed kernels run on: the legacy default stream would not be ordered before them
          ARB_CUDA_CHECK(cudaMemsetAsync(d->stamps, 0xff, kMaxFanout * sizeof(unsigned long long), d->dev.stream));
          ARB_CUDA_CHECK(cudaMemsetAsync(d->stamps + kMaxFanout, 0, kMaxFanout * sizeof(unsigned long long), d->dev.stream));
        }
      if (!gated(work, reps, nullptr, &why)) {
        t->skipped = why;
        return false;
      }
    }
    for (std::size_t g = 0; g < n_; ++g) t->gpu_ms[g] = elapsed_ms(dev_[g]->dev.start, dev_[g]->dev.stop);
    return true;
  }

  // One episode: gate kernels, start events, everyone's work (and `extra`, e.g. a probe), then
  // the gate opens and the host waits for every GPU. False, with *why, when a gate timed out.
  bool gated(const Work& work, int reps, const std::function<void()>& extra, std::string* why) {
    gate_.set(0);
    const auto bound_s = std::max(5.0, 5 * opt_.wait_timeout_s);
    const auto bound_ns = static_cast<unsigned long long>(bound_s * 1e9);
    for (auto& d : dev_) {
      ARB_CUDA_CHECK(cudaSetDevice(d->dev.ordinal));
      ARB_CUDA_CHECK(cudaMemsetAsync(d->gate_timed_out, 0, sizeof(unsigned), d->dev.stream));
      gate_kernel<<<1, 1, 0, d->dev.stream>>>(gate_.device_word, bound_ns, d->gate_timed_out);
      ARB_CUDA_CHECK(cudaGetLastError());
      ARB_CUDA_CHECK(cudaEventRecord(d->dev.start, d->dev.stream));
    }
    for (std::size_t g = 0; g < n_; ++g) {
      ARB_CUDA_CHECK(cudaSetDevice(dev_[g]->dev.ordinal));
      work(g, reps);
      ARB_CUDA_CHECK(cudaEventRecord(dev_[g]->dev.stop, dev_[g]->dev.stream));
    }
    if (extra) extra();
    gate_.set(1);
    bool timed_out = false;
    for (auto& d : dev_) {
      ARB_CUDA_CHECK(cudaSetDevice(d->dev.ordinal));
      ARB_CUDA_CHECK(cudaStreamSynchronize(d->dev.stream));
      ARB_CUDA_CHECK(cudaStreamSynchronize(d->dev.stream2));
      unsigned flag = 0;
      ARB_CUDA_CHECK(cudaMemcpyAsync(&flag, d->gate_timed_out, sizeof flag, cudaMemcpyDeviceToHost, d->dev.stream));
      ARB_CUDA_CHECK(cudaStreamSynchronize(d->dev.stream));
      timed_out = timed_out || flag != 0;
    }
    if (timed_out)
      *why = "a GPU's start gate timed out after " + std::to_string(bound_s) +
             " s (enqueueing the work took longer); the GPUs did not start together";
    return !timed_out;
  }

  std::size_t n_;
  ProbeOptions opt_;
  std::size_t packs_, bytes_;
  PeerAccess peers_;
  HostGate gate_;
  std::vector<std::unique_ptr<LoadedDevice>> dev_;
};

}  // namespace

LoadedLinks run_loaded_probes(const std::vector<CudaGpu>& gpus, const ProbeOptions& opt) {
  LoadedLinks l;
  const std::size_t packs = std::max<std::size_t>(1, opt.bytes / sizeof(uint4));
  l.bytes = packs * sizeof(uint4);
  l.repetitions = opt.repetitions;
  l.latency_load = std::string(kLoadedCePush);
  if (gpus.size() < 2) {
    l.skipped = "fewer than 2 GPUs: no link to load";
    return l;
  }
  const std::string at_once = " to every peer at once; link time from the common start gate";
  LoadedProbe probe(gpus, opt);
  auto add = [&](std::string_view name, std::string method, std::string_view idle, bool pull, LoadedTimes t) {
    l.patterns.push_back(loaded_pattern(name, std::move(method), idle, pull, l.bytes, opt.repetitions, t));
  };
  auto off = [](const char* why) {
    LoadedTimes t;
    t.skipped = why;
    return t;
  };
  const std::size_t n = gpus.size();
  auto sized = [n](LoadedTimes t) {
    t.gpu_ms.resize(n);
    return t;
  };
  add(kLoadedCePush, "copy engine: every GPU runs cudaMemcpyPeerAsync, one stream per peer, on its own streams" + at_once,
      kCeUnidir, false, opt.copy_engine ? probe.copy_engines(false) : sized(off("copy-engine probes turned off")));
  add(kLoadedCePull, "copy engine: every GPU pulls with cudaMemcpyPeerAsync from every peer, on its own streams" +
                         std::string("; link time from the common start gate"),
      kCeUnidir, true, opt.copy_engine ? probe.copy_engines(true) : sized(off("copy-engine probes turned off")));
  add(kLoadedSmPush, "SM push: one kernel per GPU stores 16-byte packs into every peer at once (blocks split "
                     "among peers); link time from %globaltimer in the kernel",
      kPushUnidir, false, opt.sm ? probe.sm_kernels(false) : sized(off("SM probes turned off")));
  add(kLoadedSmPull, "SM pull: one kernel per GPU loads 16-byte packs from every peer at once (blocks split "
                     "among peers); link time from %globaltimer in the kernel",
      kPullUnidir, true, opt.sm ? probe.sm_kernels(true) : sized(off("SM probes turned off")));
  if (opt.latency && opt.latency_rounds > 0 && opt.copy_engine) {
    l.latency_us = probe.latency_under_load(
        "SM flag ping-pong as latency_us, while every GPU runs the ce_push load; a cell whose ping-pong outlasted "
        "the load is null");
  } else {
    l.latency_us.unit = "us";
    l.latency_us.skipped = opt.copy_engine ? "latency probe turned off" : "copy-engine probes (its load) turned off";
  }
  return l;
}

}  // namespace arbench::topo
