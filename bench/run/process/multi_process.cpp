#include "run/process/multi_process.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>

#include "arbench/core/errors.hpp"

namespace arbench {

void resolve_multi_process(RunConfig& cfg, Backend b, World& w) {
  if (!w.multi_process()) return;
  const WorldLayout& l = w.layout();
  const std::string n = std::to_string(w.size());
  // `auto` picks per process (GPUs present or not): every process must have picked the same.
  const auto picked = w.all_gather(std::string(backend_name(b)), "comparing the backends");
  for (int r = 0; r < w.size(); ++r)
    if (picked[static_cast<std::size_t>(r)] != picked[0])
      throw EnvironmentError("the processes chose different backends: process 0 (" + l.hosts.at(0) + ") " +
                             picked[0] + ", process " + std::to_string(r) + " (" +
                             l.hosts.at(static_cast<std::size_t>(r)) + ") " + picked[static_cast<std::size_t>(r)] +
                             "; give --backend, and GPUs to every node for cuda");
  if (b == Backend::single_gpu)
    throw UsageError("--backend single-gpu runs N virtual ranks inside one process; under " + l.launcher +
                     " every process is one rank: use --backend cuda (one GPU per process) or host");
  if (b == Backend::host && l.nodes > 1)
    throw UsageError("--backend host: the ranks reach each other through shared memory, so every process must "
                     "be on one node; this run spans " + std::to_string(l.nodes) + " nodes (" + l.hosts.front() +
                     ", ...). Launch it on one node, or use --backend cuda");
  if (cfg.gpus.empty()) cfg.gpus = {w.size()};
  if (cfg.gpus != std::vector<int>{w.size()})
    throw UsageError("--gpus " + join_ints(cfg.gpus) + ": under " + l.launcher + " every case uses all " + n +
                     " processes, one rank each, so --gpus must be " + n + " or left out (for fewer ranks, "
                     "start fewer processes)");
}

std::vector<std::string> agree_on_plan(World& w, const std::vector<std::string>& why_not) {
  if (!w.multi_process()) return why_not;
  std::string mine;  // the reasons, one per line (a reason is one line)
  for (std::string r : why_not) {
    std::replace(r.begin(), r.end(), '\n', ' ');
    mine += r + "\n";
  }
  std::vector<std::string> plan(why_not.size());
  for (const std::string& theirs : w.all_gather(mine, "agreeing on the cases to run")) {
    std::istringstream in(theirs);
    std::string reason;
    for (std::size_t i = 0; i < plan.size() && std::getline(in, reason); ++i)
      if (plan[i].empty()) plan[i] = reason;
  }
  return plan;
}

int parse_stall_process(const char* text, int processes) {
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v >= processes)
    throw UsageError(std::string("ARBENCH_TEST_STALL_PROCESS=") + text + " is not a process of this run (0 to " +
                     std::to_string(processes - 1) + "); unset it");
  return int(v);
}

LaunchInfo launch_info(const World& w) {
  const WorldLayout& l = w.layout();
  LaunchInfo info;
  info.launcher = l.launcher;
  info.processes = w.size();
  info.hosts.assign(static_cast<std::size_t>(l.nodes), "");
  info.processes_per_node.assign(static_cast<std::size_t>(l.nodes), 0);
  for (int r = 0; r < w.size(); ++r) {
    const auto node = static_cast<std::size_t>(l.node_of.at(static_cast<std::size_t>(r)));
    info.hosts[node] = l.hosts.at(static_cast<std::size_t>(r));
    ++info.processes_per_node[node];
  }
  return info;
}

}  // namespace arbench
