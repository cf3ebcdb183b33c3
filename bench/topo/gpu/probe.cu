// Link probes: copy engine vs SM push/pull bandwidth, and SM ping-pong latency, per GPU pair.
// Method (stated in every matrix): one warm-up, then `repetitions` back-to-back copies timed
// with CUDA events on the stream that does the work; bidirectional runs both directions at
// once (the second stream waits on the first's start event, the first waits on the second's
// end) and reports the sum. Cell [i][j] = data moving from GPU i to GPU j. Pairs run one at
// a time, so a cell measures that link alone.
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

#include "topo/gpu/probe.hpp"
#include "topo/gpu/probe_device.cuh"

namespace arbench::topo {
namespace {

using namespace probe;

using Enqueue = std::function<void(ProbeDevice&)>;

// Milliseconds for `reps` rounds of `on_x` on x (timed there) and, when given, `on_y` on y at
// the same time. One untimed warm-up round first (first touch of peer pages, clocks up).
float time_work(ProbeDevice& x, ProbeDevice& y, int reps, const Enqueue& on_x, const Enqueue& on_y) {
  for (int pass = 0; pass < 2; ++pass) {
    const int n = pass == 0 ? 1 : reps;
    ARB_CUDA_CHECK(cudaSetDevice(x.ordinal));
    ARB_CUDA_CHECK(cudaEventRecord(x.start, x.stream));
    if (on_y) {
      ARB_CUDA_CHECK(cudaSetDevice(y.ordinal));
      ARB_CUDA_CHECK(cudaStreamWaitEvent(y.stream, x.start, 0));
      for (int r = 0; r < n; ++r) on_y(y);
      ARB_CUDA_CHECK(cudaEventRecord(y.done, y.stream));
      ARB_CUDA_CHECK(cudaSetDevice(x.ordinal));
    }
    for (int r = 0; r < n; ++r) on_x(x);
    if (on_y) ARB_CUDA_CHECK(cudaStreamWaitEvent(x.stream, y.done, 0));
    ARB_CUDA_CHECK(cudaEventRecord(x.stop, x.stream));
    ARB_CUDA_CHECK(cudaEventSynchronize(x.stop));
  }
  float ms = 0;
  ARB_CUDA_CHECK(cudaEventElapsedTime(&ms, x.start, x.stop));
  return ms;
}

Enqueue sm_copy(uint4* dst, const uint4* src, std::size_t packs) {
  return [=](ProbeDevice& on) {
    copy_kernel<<<on.blocks, kCopyThreads, 0, on.stream>>>(dst, src, packs);
    ARB_CUDA_CHECK(cudaGetLastError());
  };
}

Enqueue ce_copy(ProbeDevice& to, const ProbeDevice& from, uint4* dst, const uint4* src, std::size_t bytes) {
  return [&to, &from, dst, src, bytes](ProbeDevice& on) {
    ARB_CUDA_CHECK(cudaMemcpyPeerAsync(dst, to.ordinal, src, from.ordinal, bytes, on.stream));
  };
}

// One-way latency x -> y in microseconds, or nullopt with the reason in *why.
std::optional<double> one_way_us(ProbeDevice& x, ProbeDevice& y, const ProbeOptions& opt, std::string* why) {
  const PingPongSides sides = pingpong_sides(x, y);
  reset_pingpong(sides);
  launch_pingpong(sides, opt);
  ARB_CUDA_CHECK(cudaSetDevice(x.ordinal));
  ARB_CUDA_CHECK(cudaStreamSynchronize(sides.xs));
  ARB_CUDA_CHECK(cudaSetDevice(y.ordinal));
  ARB_CUDA_CHECK(cudaStreamSynchronize(sides.ys));
  return pingpong_one_way_us(sides, opt, why);
}

}  // namespace

Links run_link_probes(const std::vector<CudaGpu>& gpus, const ProbeOptions& opt) {
  const std::size_t n = gpus.size();
  const std::size_t packs = std::max<std::size_t>(1, opt.bytes / sizeof(uint4));
  const std::size_t bytes = packs * sizeof(uint4);
  Links links;
  for (const auto& g : gpus) links.bus_ids.push_back(g.bus_id);
  const char* per_pair = "; pairs one at a time; diagonal: within one GPU (reference only)";
  const std::string both = "; both directions at once, sum of the two";
  auto bw = [&](const std::string& how) { return empty_matrix(n, how + per_pair, "GB/s", bytes, opt.repetitions); };
  LinkMatrix ce_uni = bw("copy engine: cudaMemcpyPeerAsync on the source GPU's stream");
  LinkMatrix ce_bi = bw("copy engine: cudaMemcpyPeerAsync" + both);
  LinkMatrix push_uni = bw("SM push: kernel on the source GPU stores 16-byte packs into peer memory");
  LinkMatrix push_bi = bw("SM push" + both);
  LinkMatrix pull_uni = bw("SM pull: kernel on the destination GPU loads 16-byte packs from peer memory");
  LinkMatrix pull_bi = bw("SM pull" + both);
  LinkMatrix lat = empty_matrix(n,
                                "SM flag ping-pong: one thread per GPU, st.release.sys into the peer's flag, "
                                "ld.acquire.sys spin on its own, bounded by %globaltimer; one-way = round trip / 2" +
                                    std::string(per_pair),
                                "us", sizeof(unsigned), opt.latency_rounds);
  {
    std::vector<std::unique_ptr<ProbeDevice>> dev;
    for (const auto& g : gpus) dev.push_back(std::make_unique<ProbeDevice>(g, bytes));
    PeerAccess peers(gpus);
    auto gbps = [&](float ms, int directions) {
      return directions * static_cast<double>(bytes) * opt.repetitions / (static_cast<double>(ms) * 1e-3) / 1e9;
    };
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        ProbeDevice &s = *dev[i], &d = *dev[j];
        const bool first = i < j;  // bidirectional cells: once per pair, never the diagonal
        if (opt.copy_engine) {
          ce_uni.values[i][j] = gbps(time_work(s, s, opt.repetitions, ce_copy(d, s, d.b, s.a, bytes), nullptr), 1);
          if (first)
            ce_bi.values[i][j] = ce_bi.values[j][i] = gbps(
                time_work(s, d, opt.repetitions, ce_copy(d, s, d.b, s.a, bytes), ce_copy(s, d, s.b, d.a, bytes)), 2);
        }
        const bool push_ok = peers.ok[i][j], pull_ok = peers.ok[j][i], both_ok = push_ok && pull_ok;
        const std::string no_access = pair_name(i, j) + ": no P2P access (cudaDeviceCanAccessPeer)";
        if (opt.sm) {
          // Push runs on the source GPU, pull on the destination; same buffers, same bytes.
          if (push_ok)
            push_uni.values[i][j] = gbps(time_work(s, s, opt.repetitions, sm_copy(d.b, s.a, packs), nullptr), 1);
          else
            push_uni.notes.push_back(no_access);
          if (pull_ok)
            pull_uni.values[i][j] = gbps(time_work(d, d, opt.repetitions, sm_copy(d.b, s.a, packs), nullptr), 1);
          else
            pull_uni.notes.push_back(no_access);
          if (first && both_ok) {
            push_bi.values[i][j] = push_bi.values[j][i] =
                gbps(time_work(s, d, opt.repetitions, sm_copy(d.b, s.a, packs), sm_copy(s.b, d.a, packs)), 2);
            pull_bi.values[i][j] = pull_bi.values[j][i] =
                gbps(time_work(d, s, opt.repetitions, sm_copy(d.b, s.a, packs), sm_copy(s.b, d.a, packs)), 2);
          }
        }
        if (opt.latency && opt.latency_rounds > 0) {
          std::string why;
          if (!both_ok) lat.notes.push_back(no_access + " both ways");
          else if (!(lat.values[i][j] = one_way_us(s, d, opt, &why))) lat.notes.push_back(pair_name(i, j) + ": " + why);
        }
      }
  }
  auto finish = [&](std::string_view name, LinkMatrix& m, bool enabled, const char* off) {
    if (!enabled) {
      m.values.clear();
      m.skipped = off;
    } else if (n >= 2 && m.notes.size() >= n * (n - 1) && !m.notes.empty() &&
               m.notes.front().find("no P2P access") != std::string::npos) {
      m.skipped = "no GPU pair has P2P access (cudaDeviceCanAccessPeer = 0 everywhere): the PCIe topology or "
                  "the driver forbids it; copy-engine numbers go through host memory";
      m.notes.clear();
    } else if (n < 2) {
      m.skipped = "fewer than 2 GPUs: no pair to measure (the diagonal, within one GPU, is shown for reference)";
    }
    links.matrices[std::string(name)] = std::move(m);
  };
  finish(kCeUnidir, ce_uni, opt.copy_engine, "copy-engine probes turned off");
  finish(kCeBidir, ce_bi, opt.copy_engine, "copy-engine probes turned off");
  finish(kPushUnidir, push_uni, opt.sm, "SM probes turned off");
  finish(kPushBidir, push_bi, opt.sm, "SM probes turned off");
  finish(kPullUnidir, pull_uni, opt.sm, "SM probes turned off");
  finish(kPullBidir, pull_bi, opt.sm, "SM probes turned off");
  finish(kLatency, lat, opt.latency && opt.latency_rounds > 0, "latency probe turned off");
  return links;
}

}  // namespace arbench::topo
