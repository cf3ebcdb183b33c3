#include "kernels/fabric/cuda/process/process_device.hpp"

#include <cuda_runtime.h>

#include <string>

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/cuda/cuda_fabric.hpp"
#include "kernels/fabric/cuda/process/process_gpu.hpp"

namespace arbench {
namespace {

void agree_or_throw(World& w, const std::string& failure, const char* what) {
  const std::string agreed = first_failure(w, failure, what);
  if (!agreed.empty()) throw_agreed("E3:" + agreed);
}

}  // namespace

int agree_process_device(World& w) {
  const WorldLayout& l = w.layout();
  const std::string& host = l.hosts.at(std::size_t(w.rank()));
  int device = 0;
  std::string bus_id, failure;
  try {
    device = choose_process_gpu(l.local_rank, l.local_size, cuda_device_count_or_throw(), host);
    char id[32] = {};
    ARB_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, device));
    bus_id = id;
  } catch (const Error& e) {
    failure = e.what();
  }
  agree_or_throw(w, failure, "choosing the processes' GPUs");
  agree_or_throw(w, shared_gpu_problem(l.hosts, w.all_gather(bus_id, "exchanging the GPUs' bus ids")),
                 "checking that no two processes share a GPU");
  return device;
}

std::string custom_kernels_across_processes_problem(World& w, int device) {
  const WorldLayout& l = w.layout();
  if (l.nodes > 1)
    return "the custom kernels load and store their peers' memory, and this run spans " + std::to_string(l.nodes) +
           " nodes: a GPU on another node is not reachable that way (NCCL runs across nodes)";
  cudaDeviceProp prop{};
  std::string model, why;
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
    (void)cudaGetLastError();
    why = "process " + std::to_string(w.rank()) + " cannot read its GPU's properties: " + cudaGetErrorName(e);
  } else {
    model = std::string(prop.name) + " with " + std::to_string(prop.multiProcessorCount) + " SMs";
  }
  const auto models = w.all_gather(model, "comparing the processes' GPUs");
  for (int r = 0; r < w.size() && why.empty(); ++r)
    if (models[std::size_t(r)] != models[0])
      why = "the processes' GPUs differ (" + models[0] + " on process 0, " + models[std::size_t(r)] + " on process " +
            std::to_string(r) + "), and the custom kernels size every rank's grid alike";
  return first_failure(w, why, "checking the processes' GPUs");
}

}  // namespace arbench
