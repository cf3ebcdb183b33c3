// NCCL loads one tuner plugin per process, at the first communicator, and never retries a failed
// load (NCCL 2.28.9 src/plugin/tuner.cc). So when a sweep has a case that needs arbench's plugin
// (`nccl[tuned]`, `nccl[<algo>/<proto>/ch:N]`), every NCCL communicator of the process must load
// it: NCCL_TUNER_PLUGIN is set once, before any communicator exists. Without a table or a channel
// count in its communicator's environment the plugin changes nothing, so `nccl` and the other
// NCCL cases still run NCCL's own choice (their JSON settings record NCCL_TUNER_PLUGIN).
#pragma once

#include <string>

#include "sweep/sweep.hpp"

namespace arbench {

// True when a case of `sweep` (not a skipped one) needs the plugin.
bool sweep_needs_tuner(const Sweep& sweep);

// Sets NCCL_TUNER_PLUGIN to `plugin` and clears ARBENCH_NCCL_TUNER_TABLE and
// ARBENCH_NCCL_TUNER_CHANNELS from the process environment (each case sets its own). Returns the
// line to tell the user. Throws UsageError when NCCL_TUNER_PLUGIN already names another plugin,
// EnvironmentError (exit 3) when `found` is false.
std::string load_tuner_everywhere(const std::string& plugin, bool found, const std::string& looked);

}  // namespace arbench
