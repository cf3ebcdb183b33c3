// The World of this process (arbench/world.hpp): MPI's when an MPI launcher started it as one of
// several processes and the build has MPI (start_world_mpi.cpp), else one process
// (start_world_none.cpp). CMake compiles exactly one of the two (ARBENCH_WITH_MPI).
#pragma once

#include <memory>

#include "arbench/world.hpp"
#include "mpi/launch.hpp"

namespace arbench {

// Throws EnvironmentError (exit 3) when the launch cannot work: a build without MPI started as
// one of several processes, or MPI seeing one process where the launcher started several.
std::unique_ptr<World> start_world(int* argc, char*** argv, const LaunchEnv& launch);

// Whether this build can run under MPI (for --version and the docs' checks).
bool built_with_mpi();

}  // namespace arbench
