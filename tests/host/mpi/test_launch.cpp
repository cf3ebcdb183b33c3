// Is this process one of several an MPI launcher started? (bench/mpi/launch.hpp)
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "mpi/launch.hpp"

using namespace arbench;

namespace {

LaunchEnv detect(const std::map<std::string, std::string>& env) {
  return detect_launch([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace

TEST(Launch, PlainProcessIsNotLaunched) {
  const LaunchEnv l = detect({{"HOME", "/root"}});
  EXPECT_FALSE(l.launched());
  EXPECT_FALSE(l.several());
}

TEST(Launch, OpenMpiSrunPmiAndPmix) {
  EXPECT_EQ(detect({{"OMPI_COMM_WORLD_SIZE", "8"}}).launcher, "mpirun");
  EXPECT_EQ(detect({{"OMPI_COMM_WORLD_SIZE", "8"}}).size, 8);
  const LaunchEnv s = detect({{"SLURM_STEP_NUM_TASKS", "16"}, {"SLURM_PROCID", "3"}});
  EXPECT_EQ(s.launcher, "srun");
  EXPECT_EQ(s.size, 16);
  EXPECT_EQ(detect({{"PMI_SIZE", "2"}}).size, 2);
  // PMIx does not say how many: several, as far as anyone can tell.
  const LaunchEnv x = detect({{"PMIX_RANK", "0"}});
  EXPECT_TRUE(x.several());
}

TEST(Launch, OneProcessOrABatchShellIsNotSeveral) {
  EXPECT_FALSE(detect({{"OMPI_COMM_WORLD_SIZE", "1"}}).several());
  // An sbatch script's own shell has the job's task count but is no srun step.
  EXPECT_FALSE(detect({{"SLURM_NTASKS", "8"}, {"SLURM_PROCID", "0"}}).launched());
  EXPECT_FALSE(detect({{"SLURM_STEP_NUM_TASKS", "4"}}).launched());
}
