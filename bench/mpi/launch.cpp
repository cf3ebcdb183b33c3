#include "mpi/launch.hpp"

#include <cstdlib>

namespace arbench {
namespace {

int count_or_zero(const char* text) {
  if (text == nullptr) return 0;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && v > 0 && v < (1L << 30) ? int(v) : 0;
}

}  // namespace

LaunchEnv detect_launch(const GetEnv& getenv) {
  if (const char* n = getenv("OMPI_COMM_WORLD_SIZE")) return {"mpirun", count_or_zero(n)};
  // srun sets SLURM_STEP_NUM_TASKS for the tasks of a step; a batch script's own shell is no step.
  if (const char* n = getenv("SLURM_STEP_NUM_TASKS"); n != nullptr && getenv("SLURM_PROCID") != nullptr)
    return {"srun", count_or_zero(n)};
  if (const char* n = getenv("PMI_SIZE")) return {"mpirun", count_or_zero(n)};
  if (getenv("PMIX_RANK") != nullptr) return {"mpirun", 0};
  return {};
}

LaunchEnv detect_launch() {
  return detect_launch([](const char* name) { return static_cast<const char*>(std::getenv(name)); });
}

}  // namespace arbench
