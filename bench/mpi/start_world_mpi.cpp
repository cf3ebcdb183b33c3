// A build with MPI: MPI's World when a launcher started this process as one of several.
#include <string>

#include "arbench/core/errors.hpp"
#include "mpi/mpi_world.hpp"
#include "mpi/start_world.hpp"

namespace arbench {

bool built_with_mpi() { return true; }

std::unique_ptr<World> start_world(int* argc, char*** argv, const LaunchEnv& launch) {
  if (!launch.several()) return std::make_unique<SoloWorld>();
  auto w = std::make_unique<MpiWorld>(argc, argv, launch.launcher);
  if (w->size() == 1 && launch.size > 1)
    throw EnvironmentError(launch.launcher + " started " + std::to_string(launch.size) +
                           " processes but MPI sees each as alone (MPI_COMM_WORLD has 1 process), so they "
                           "cannot work together. Under Slurm, launch with the PMI plugin your MPI uses: "
                           "srun --mpi=pmix (see `srun --mpi=list`)");
  return w;
}

}  // namespace arbench
