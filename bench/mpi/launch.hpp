// Was this process started by an MPI launcher, as one of several? Read from the variables the
// launchers set, before (and without) MPI: a build without MPI must still notice that it was
// started by `mpirun -np 8` and refuse, instead of running the whole sweep 8 times.
#pragma once

#include <functional>
#include <string>

namespace arbench {

struct LaunchEnv {
  std::string launcher = "none";  // "mpirun", "srun" or "none"
  int size = 1;                   // processes the launcher started; 0 when it does not say
  bool launched() const { return launcher != "none"; }
  // Started as one of several processes (or as one of an unknown number).
  bool several() const { return launched() && size != 1; }
};

using GetEnv = std::function<const char*(const char*)>;

// Open MPI (OMPI_COMM_WORLD_SIZE), Slurm's srun (SLURM_STEP_NUM_TASKS), PMI (PMI_SIZE: MPICH's
// Hydra, srun --mpi=pmi2) and PMIx (PMIX_RANK; the size is not in the environment).
LaunchEnv detect_launch(const GetEnv& getenv);
LaunchEnv detect_launch();  // this process's environment

}  // namespace arbench
