// Where libarbench-nccl-tuner.so (kernels/nccl/tuner/) is, for `arbench settings`' paste lines and
// for the runs that load it (`nccl[tuned]`, the channel sweep): $ARBENCH_NCCL_TUNER_PLUGIN when
// set, else next to the arbench executable (the build folder), else ../lib/ from it (what
// `cmake --install` lays out). The build puts both in the same folder.
#pragma once

#include <string>

namespace arbench {

inline constexpr const char* kTunerPluginFile = "libarbench-nccl-tuner.so";

struct TunerPluginPath {
  std::string path;    // absolute; the install location when not found
  bool found = false;
  std::string looked;  // the places tried, for a message
  // When not found: what would put it at `path`, for the message ("building the target
  // arbench_nccl_tuner" in a build folder, "`cmake --install`" in an installed tree).
  std::string put_by;
};

TunerPluginPath find_tuner_plugin();

}  // namespace arbench
