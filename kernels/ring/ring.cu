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
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "arbench/algo/ring/ring.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/gpu_variant.hpp"
#include "kernels/ring/ring_gpu.hpp"

namespace arbench {

ARB_BLOCK_KERNEL(ring_kernel, launch_ring, algo::RingPolicy, algo::RingArgs, algo::ring_channel)

namespace {

class RingGpu final : public GpuOnly<RingVariant> {
 public:
  using GpuOnly::GpuOnly;

  // One block per channel.
  void launch(int rank, Stream stream) override { launch_ring(args_for(rank), dtype_, geometry().channels, stream); }

 protected:
  // Channels wait on their neighbours' channels, so every block of every rank sharing a device
  // (N on single_gpu, 1 on the cuda fabric) must be resident at once: share out the SMs.
  int channel_cap(const Fabric& f) const override { return gpu_channel_cap(device_sms(f), f.ranks_per_device()); }
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
  return gpu_entry(kRingText, [] { return make_ring_gpu(); });
}

}  // namespace arbench
