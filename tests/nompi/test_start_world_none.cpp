// A build without MPI (bench/mpi/start_world_none.cpp, compiled here whatever the build has):
// one process, and a clear refusal (exit 3) when a launcher started several.
#include <gtest/gtest.h>

#include "arbench/core/errors.hpp"
#include "mpi/start_world.hpp"

using namespace arbench;

TEST(StartWorldWithoutMpi, AloneIsOneProcess) {
  EXPECT_FALSE(built_with_mpi());
  int argc = 0;
  char** argv = nullptr;
  EXPECT_EQ(start_world(&argc, &argv, LaunchEnv{})->size(), 1);
  EXPECT_EQ(start_world(&argc, &argv, LaunchEnv{"mpirun", 1})->size(), 1);  // mpirun -np 1
}

TEST(StartWorldWithoutMpi, SeveralProcessesAreRefusedWithExit3) {
  int argc = 0;
  char** argv = nullptr;
  try {
    start_world(&argc, &argv, LaunchEnv{"srun", 8});
    FAIL() << "no throw";
  } catch (const EnvironmentError& e) {
    EXPECT_EQ(e.exit_code(), kExitEnvironment);
    const std::string what = e.what();
    EXPECT_NE(what.find("started by srun as one of 8 processes, but this build has no MPI"), std::string::npos) << what;
    EXPECT_NE(what.find("apt-get install libopenmpi-dev"), std::string::npos) << what;
  }
  EXPECT_THROW(start_world(&argc, &argv, LaunchEnv{"mpirun", 0}), EnvironmentError);  // PMIx: count unknown
}
