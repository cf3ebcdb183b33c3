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
#include <string>
#include <vector>

#include "arbench/algo/ring/ring.hpp"
#include "kernels/block_kernel.cuh"
#include "kernels/gpu_variant.hpp"
#include "kernels/pci_bus_order.hpp"
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

  // PCI bus order (pci_bus_order.hpp); the topology work replaces it with a PCIe-tree-aware order.
  std::vector<int> default_order(const Fabric& f) const override { return pci_bus_order(f); }
  std::string default_order_source() const override { return "PCI bus order"; }
};

}  // namespace

std::unique_ptr<RingVariant> make_ring_gpu(RingOptions opt) { return std::make_unique<RingGpu>(opt); }

VariantEntry ring_gpu_entry() {
  return gpu_entry(kRingText, [] { return make_ring_gpu(); });
}

}  // namespace arbench
