// The GPU of this process in a run of one process per GPU (mpirun / srun), agreed by every
// process: its node-local rank's GPU (process_gpu.hpp), and no two processes of a node on the
// same GPU (by PCI bus id). Used by the multi-process cuda fabrics, with NCCL or without.
#pragma once

#include "arbench/world.hpp"

namespace arbench {

// Collective; every process throws the same EnvironmentError (exit 3) when any cannot have one.
int agree_process_device(World& w);

// Why the custom kernels cannot run across these processes, the same on every process (empty
// when they can): they load and store their peers' memory, so one node only, and the kernels
// size every rank's grid alike, so the GPUs must match. Collective; `device` is this process's.
std::string custom_kernels_across_processes_problem(World& w, int device);

}  // namespace arbench
