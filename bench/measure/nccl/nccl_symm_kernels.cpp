#include "measure/nccl/nccl_symm_kernels.hpp"

#include <cstdio>

namespace arbench {

int nccl_version_code(const std::string& version) {
  int major = 0, minor = 0, patch = 0, used = 0;
  if (std::sscanf(version.c_str(), "%d.%d.%d%n", &major, &minor, &patch, &used) != 3 || major < 0 || minor < 0 ||
      minor > 99 || patch < 0 || patch > 99)
    return -1;
  return major * 10000 + minor * 100 + patch;
}

std::string nccl_symm_kernels_off(const std::string& version, bool all_nvlink) {
  const int code = nccl_version_code(version);
  if (code < kNcclSymmNvlinkOnlyCode || all_nvlink) return {};
  return "NCCL " + version +
         " runs its symmetric kernels only when every GPU pair is NVLink-connected (from 2.29.2): this case ran "
         "NCCL's ring/tree on symmetric buffers";
}

}  // namespace arbench
