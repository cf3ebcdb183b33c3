#include "measure/fabric_factory.hpp"

#include <cuda_runtime.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "arbench/core/errors.hpp"

#include "kernels/fabric/host/host_fabric.hpp"
#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/nccl_fabric.hpp"
#include "kernels/fabric/nccl/nccl_libraries.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"
#include "kernels/fabric/nccl/nccl_process_fabric.hpp"
#include "kernels/fabric/cuda/process/process_gpu.hpp"
#include "kernels/fabric/host/shm_fabric.hpp"
#include "kernels/fabric/cuda/single_gpu_fabric.hpp"
#include "kernels/fabric/peer/peer_fabric.hpp"
#include "kernels/fabric/peer/peer_process_fabric.hpp"

namespace arbench {

std::unique_ptr<Fabric> make_fabric(Backend b, int world, const FabricEnv& env, double timeout_s, World& processes,
                                    const std::string& provider, BrokenPair planted) {
  const bool own_peer_memory = b == Backend::cuda && provider == "cuda";
  if (own_peer_memory && !env.empty())
    throw UsageError("NCCL settings asked of the cuda provider's fabric, which has no NCCL");
  // "nccl@<label>": the communicators of a library measured beside the default (nccl_libraries.hpp).
  const NcclApi* library = nullptr;
  if (b == Backend::cuda && !split_library(provider).library.empty()) library = &nccl_api_of_provider(provider);
  if (processes.multi_process()) {
    if (world != processes.size())
      throw UsageError("a fabric of " + std::to_string(world) + " ranks asked of " + std::to_string(processes.size()) +
                       " processes; every rank is one process");
    if (b == Backend::host) return std::make_unique<ShmFabric>(processes, timeout_s);
    if (own_peer_memory) return std::make_unique<PeerProcessFabric>(processes, timeout_s, planted);
    if (b == Backend::cuda) return std::make_unique<NcclProcessFabric>(processes, timeout_s, env, planted, library);
    throw UsageError(std::string("the ") + std::string(backend_name(b)) + " backend does not run across processes");
  }
  switch (b) {
    case Backend::host: return std::make_unique<HostFabric>(world, timeout_s, planted);
    case Backend::single_gpu: return std::make_unique<SingleGpuFabric>(world, 0, timeout_s);
    case Backend::cuda:
      if (own_peer_memory) return std::make_unique<PeerFabric>(world, timeout_s, planted);
      return std::make_unique<NcclFabric>(world, timeout_s, env, planted, library);
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

namespace {

GpuInfo gpu_info(int d) {
  GpuInfo g;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) return g;
  g.index = d;
  g.name = prop.name;
  g.cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess) g.pci_bus_id = bus;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d) == cudaSuccess) g.sm_clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d) == cudaSuccess) g.mem_clock_mhz = khz / 1000;
  return g;
}

// One process per GPU: every process's GPU, by world rank ("index" = rank; bus ids of other
// nodes carry their host: "host/0000:01:00.0"). Collective.
std::vector<GpuInfo> gpus_of_processes(World& w) {
  const WorldLayout& l = w.layout();
  const std::string host = l.hosts.at(std::size_t(w.rank()));
  GpuInfo g = gpu_info(choose_process_gpu(l.local_rank, l.local_size, cuda_device_count(), host));
  const std::string mine = g.name + "\n" + g.cc + "\n" + (l.nodes > 1 ? host + "/" : "") + g.pci_bus_id + "\n" +
                           std::to_string(g.sm_clock_mhz) + "\n" + std::to_string(g.mem_clock_mhz);
  std::vector<GpuInfo> out;
  int rank = 0;
  for (const std::string& text : w.all_gather(mine, "gathering the GPUs for the provenance")) {
    std::istringstream in(text);
    GpuInfo x;
    x.index = rank++;
    std::string sm, mem;
    std::getline(in, x.name);
    std::getline(in, x.cc);
    std::getline(in, x.pci_bus_id);
    std::getline(in, sm);
    std::getline(in, mem);
    x.sm_clock_mhz = std::atoi(sm.c_str());
    x.mem_clock_mhz = std::atoi(mem.c_str());
    out.push_back(x);
  }
  return out;
}

}  // namespace

void add_gpu_provenance(Provenance& p, Backend b, int gpus, World& processes) {
  if (b == Backend::host) return;
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess)
    p.driver = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    p.cuda_runtime = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  if (b == Backend::cuda) {
    p.nccl_version = NcclApi::version_or_reason();
    if (NcclApi::available()) p.nccl_library = NcclApi::get().path;
    if (const std::vector<const NcclLibrary*> libs = nccl_libraries(); !libs.empty()) {
      NcclLibraryInfo def{"nccl", "", p.nccl_version, p.nccl_library, "", "", 0, false};
      if (NcclApi::available()) {
        def.file = NcclApi::get().file;
        def.build_id = NcclApi::get().build_id;
        std::error_code ec;
        const auto size = std::filesystem::file_size(def.file.empty() ? def.path : def.file, ec);
        def.size_bytes = ec ? 0 : size;
      }
      p.nccl_libraries.push_back(def);
      for (const NcclLibrary* l : libs)
        p.nccl_libraries.push_back({with_library("nccl", l->api.label), l->api.label, nccl_version_text(l->api.version),
                                    l->api.path, l->api.file, l->api.build_id, l->size_bytes, l->named});
    }
  }
  if (processes.multi_process()) {
    p.gpus = gpus_of_processes(processes);
  } else {
    for (int d = 0; d < gpus; ++d)
      if (GpuInfo g = gpu_info(d); !g.name.empty()) p.gpus.push_back(g);
  }
  (void)cudaGetLastError();
}

}  // namespace arbench
