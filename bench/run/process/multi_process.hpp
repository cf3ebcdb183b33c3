// The run command's rules for a run of several processes, one rank each (mpirun / srun;
// docs/multi-process.md): which backends can run that way, the world size of every case, and
// the launch as provenance records it.
#pragma once

#include "arbench/fabric.hpp"
#include "arbench/world.hpp"
#include "results/provenance.hpp"
#include "sweep/run_config.hpp"

namespace arbench {

// For a World of several processes: checks that every process resolved the same backend `b`,
// that `b` can span processes (cuda; host on one node) and that --gpus asks for all of them
// (every case uses every process; default: the process count), then sets cfg.gpus. Collective.
// Throws UsageError / EnvironmentError with what to change. One process: does nothing.
void resolve_multi_process(RunConfig& cfg, Backend b, World& w);

// The plan every process runs: case i runs when it can on every process (why_not[i] empty
// everywhere), else it is skipped with the lowest process's reason. Collective; one process:
// `why_not` as it is.
std::vector<std::string> agree_on_plan(World& w, const std::vector<std::string>& why_not);

// The launch as provenance records it (processes, nodes, host names, processes per node).
LaunchInfo launch_info(const World& w);

// Test switch ARBENCH_TEST_STALL_PROCESS=<process> (`text`; null: off, -1): that process stops
// answering before its first case, as a stuck or lost one would, so the tests can watch its
// peers end the run within the World's bound. Throws UsageError unless 0 <= value < processes.
int parse_stall_process(const char* text, int processes);

}  // namespace arbench
