#include "kernels/fabric/cuda/process/process_gpu.hpp"

#include <map>
#include <utility>

#include "arbench/core/errors.hpp"

namespace arbench {

int choose_process_gpu(int local_rank, int local_size, int visible, const std::string& host) {
  if (visible == 1) return 0;
  if (local_size > visible || local_rank >= visible)
    throw EnvironmentError(host + " runs " + std::to_string(local_size) + " processes of this run but shows " +
                           std::to_string(visible) + " GPUs: start at most one process per GPU on each node " +
                           "(mpirun -H " + host + ":" + std::to_string(visible) + ", srun --ntasks-per-node=" +
                           std::to_string(visible) + ")");
  return local_rank;
}

std::string shared_gpu_problem(const std::vector<std::string>& hosts, const std::vector<std::string>& bus_ids) {
  std::map<std::pair<std::string, std::string>, std::size_t> first;
  for (std::size_t r = 0; r < hosts.size() && r < bus_ids.size(); ++r) {
    auto [it, fresh] = first.emplace(std::make_pair(hosts[r], bus_ids[r]), r);
    if (!fresh)
      return "processes " + std::to_string(it->second) + " and " + std::to_string(r) + " on " + hosts[r] +
             " would share GPU " + bus_ids[r] + "; give each process its own GPU (one process per GPU, and no "
             "CUDA_VISIBLE_DEVICES that shows the same GPU to two processes)";
  }
  return {};
}

}  // namespace arbench
