// ring kernel.
// Purpose: bandwidth all-reduce for mid/large messages on PCIe: reduce-scatter then all-gather
// over 2(N-1) pipelined steps per round, each rank pushing chunks into the next rank's receive
// slots (posted writes, the cheap direction on PCIe) and polling only its own memory; C
// channels = C independent rings, one block each, on disjoint packs of the message.
// Requirements: symmetric scratch (ring_scratch_bytes: kSlots x chunk x channels + flags),
// 16-byte aligned in/out, all channels of all ranks sharing a device co-resident (the channel
// cap below), RingState per rank in its own device memory (transfer counters: graph replays
// continue them).
// Protocol: include/arbench/algo/ring/ring.hpp (flow control) and ring_schedule.hpp (steps),
// shared with the host twin (kernels/ring/ring_twin.cpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/ring/ring.hpp"
#include "arbench/core/cuda_check.hpp"
#include "kernels/mem_device.cuh"
#include "kernels/ring/ring_gpu.hpp"

namespace arbench {
namespace {

template <DType D>
__global__ void __launch_bounds__(algo::RingPolicy::kThreads, algo::RingPolicy::kMinBlocksPerSm)
    ring_kernel(const algo::RingArgs a) {
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),
                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
  algo::ring_channel<DeviceMem, D>(a, c);  // an error is in a.state->error
}

void launch_ring(const algo::RingArgs& a, DType t, Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const int blocks = a.g.channels;
  constexpr int kThreads = algo::RingPolicy::kThreads;
  switch (t) {  // the one dtype -> template switch
    case DType::bf16: ring_kernel<DType::bf16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp16: ring_kernel<DType::fp16><<<blocks, kThreads, 0, s>>>(a); break;
    case DType::fp32: ring_kernel<DType::fp32><<<blocks, kThreads, 0, s>>>(a); break;
  }
  ARB_CUDA_CHECK(cudaGetLastError());
}

class RingGpu final : public RingVariant {
 public:
  explicit RingGpu(RingOptions opt) : RingVariant(opt) {}

  Support supports(const Case& c, const Fabric& f) const override {
    if (f.backend() == Backend::host) return Support::no("the GPU kernel needs a cuda or single-gpu fabric");
    return RingVariant::supports(c, f);
  }

  void launch(int rank, Stream stream) override { launch_ring(args_for(rank), dtype_, stream); }

 protected:
  // Channels wait on their neighbours' channels, so every block of every rank sharing a device
  // (N on single_gpu, 1 on the cuda fabric) must be resident at once: share out the SMs.
  int channel_cap(const Fabric& f) const override {
    int sms = 0;
    ARB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, f.device_of(0)));
    const int per_rank = sms / (f.ranks_per_device() > 0 ? f.ranks_per_device() : 1);
    return per_rank < 1 ? 1 : per_rank;
  }
  int threads() const override { return algo::RingPolicy::kThreads; }

  // PCI bus order (domain:bus:device.function) of the ranks' GPUs: neighbours in bus order tend
  // to share a switch, so more ring hops stay below one switch. Ties (single_gpu: one device)
  // keep rank order. The topology work replaces this with a PCIe-tree-aware order.
  std::vector<int> default_order(const Fabric& f) const override {
    std::vector<std::pair<std::string, int>> bus;
    for (int r = 0; r < f.world(); ++r) {
      char id[32] = {};
      ARB_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, f.device_of(r)));
      bus.emplace_back(id, r);
    }
    std::stable_sort(bus.begin(), bus.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<int> order;
    for (const auto& b : bus) order.push_back(b.second);
    return order;
  }
  std::string default_order_source() const override { return "PCI bus order"; }
};

}  // namespace

std::unique_ptr<RingVariant> make_ring_gpu(RingOptions opt) { return std::make_unique<RingGpu>(opt); }

VariantEntry ring_gpu_entry() {
  VariantEntry e;
  e.name = "ring";
  e.family = Family::allreduce;
  e.gpu = [] { return make_ring_gpu(); };
  return e;
}

}  // namespace arbench
