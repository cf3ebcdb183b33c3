// The process environment that loads arbench's tuner plugin; see nccl_tuner_env.hpp.
#include "run/process/nccl_tuner_env.hpp"

#include <cstdlib>
#include <filesystem>

#include "arbench/core/errors.hpp"
#include "arbench/core/nccl_library_name.hpp"

namespace arbench {

bool sweep_needs_tuner(const Sweep& sweep) {
  for (const Case& c : sweep.cases) {
    const std::string v = split_library(c.variant).variant;  // nccl@2.29.2[ring/ll/ch:4] too (--nccl-lib)
    if (v == "nccl[tuned]" || (v.rfind("nccl[", 0) == 0 && v.find("/ch:") != std::string::npos)) return true;
  }
  return false;
}

std::string load_tuner_everywhere(const std::string& plugin, bool found, const std::string& looked) {
  if (const char* have = std::getenv("NCCL_TUNER_PLUGIN"); have != nullptr && *have != '\0') {
    std::error_code ec;
    if (!std::filesystem::equivalent(have, plugin, ec))
      throw UsageError(std::string("NCCL_TUNER_PLUGIN is set to ") + have +
                       ", but nccl[tuned] and the channel configurations need arbench's plugin, and NCCL loads one "
                       "tuner per process: unset NCCL_TUNER_PLUGIN for this run");
  }
  if (!found)
    throw EnvironmentError("nccl[tuned] and the channel configurations need arbench's NCCL tuner plugin, which is not "
                           "where arbench looks (" + looked + "): build the target arbench_nccl_tuner, install "
                           "arbench with `cmake --install`, or set ARBENCH_NCCL_TUNER_PLUGIN to its path");
  setenv("NCCL_TUNER_PLUGIN", plugin.c_str(), 1);
  unsetenv("ARBENCH_NCCL_TUNER_TABLE");
  unsetenv("ARBENCH_NCCL_TUNER_CHANNELS");
  return "every NCCL case of this run loads arbench's tuner plugin (" + plugin +
         "): nccl[tuned] and the channel configurations use it; without a table it changes nothing, so the other "
         "NCCL cases run NCCL's own choice";
}

}  // namespace arbench
