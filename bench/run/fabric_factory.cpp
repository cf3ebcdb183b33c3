#include "run/fabric_factory.hpp"

#include <cuda_runtime.h>

#include "kernels/fabric/host_fabric.hpp"
#include "kernels/fabric/nccl_api.hpp"
#include "kernels/fabric/nccl_fabric.hpp"
#include "kernels/fabric/single_gpu_fabric.hpp"

namespace arbench {

std::unique_ptr<Fabric> make_fabric(Backend b, int world, const FabricEnv& env, double timeout_s) {
  switch (b) {
    case Backend::host: return std::make_unique<HostFabric>(world, timeout_s);
    case Backend::single_gpu: return std::make_unique<SingleGpuFabric>(world, 0, timeout_s);
    case Backend::cuda: return std::make_unique<NcclFabric>(world, timeout_s, env);
  }
  return nullptr;
}

std::vector<int> gpus_with_kernel_watchdog(int gpus) {
  std::vector<int> out;
  for (int d = 0; d < gpus; ++d) {
    int on = 0;
    if (cudaDeviceGetAttribute(&on, cudaDevAttrKernelExecTimeout, d) == cudaSuccess && on) out.push_back(d);
  }
  (void)cudaGetLastError();
  return out;
}

void add_gpu_provenance(Provenance& p, Backend b, int gpus) {
  if (b == Backend::host) return;
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess)
    p.driver = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    p.cuda_runtime = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  if (b == Backend::cuda) p.nccl_version = NcclApi::version_or_reason();
  for (int d = 0; d < gpus; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    GpuInfo g;
    g.index = d;
    g.name = prop.name;
    g.cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess) g.pci_bus_id = bus;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d) == cudaSuccess) g.sm_clock_mhz = khz / 1000;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d) == cudaSuccess) g.mem_clock_mhz = khz / 1000;
    p.gpus.push_back(g);
  }
  (void)cudaGetLastError();
}

}  // namespace arbench
