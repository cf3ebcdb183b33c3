// Which GPU each process of a multi-process cuda run drives (docs/multi-process.md). Pure
// functions, so the rules are tested without GPUs.
#pragma once

#include <string>
#include <vector>

namespace arbench {

// The CUDA ordinal for the process that is `local_rank` of `local_size` on `host`, which sees
// `visible` GPUs: its node-local rank, or 0 when it sees exactly one (a launcher that sets
// CUDA_VISIBLE_DEVICES per task). Throws EnvironmentError when the node runs more processes than
// it shows GPUs.
int choose_process_gpu(int local_rank, int local_size, int visible, const std::string& host);

// Empty when no two processes drive the same GPU; else which processes share which GPU.
// hosts[r], bus_ids[r]: process r's host and its GPU's PCI bus id.
std::string shared_gpu_problem(const std::vector<std::string>& hosts, const std::vector<std::string>& bus_ids);

}  // namespace arbench
