// A build without MPI: one process, and a clear refusal when a launcher started several.
#include <string>

#include "arbench/core/errors.hpp"
#include "mpi/start_world.hpp"

namespace arbench {

bool built_with_mpi() { return false; }

std::unique_ptr<World> start_world(int*, char***, const LaunchEnv& launch) {
  if (launch.several())
    throw EnvironmentError(
        "arbench was started by " + launch.launcher + " as one of " +
        (launch.size > 0 ? std::to_string(launch.size) : std::string("several")) +
        " processes, but this build has no MPI (configured with ARBENCH_WITH_MPI=OFF, or no MPI was found), "
        "so every process would run the whole sweep alone. Install Open MPI (apt-get install libopenmpi-dev "
        "openmpi-bin; scripts/setup.sh does) and rebuild, or run arbench without " + launch.launcher);
  return std::make_unique<SoloWorld>();
}

}  // namespace arbench
