// What the nccl fabrics share when they set up communicators: NCCL_* variables set only while a
// communicator is created (NCCL reads NCCL_ALGO / NCCL_PROTO then: scoped_env.hpp), and the
// requirements of the symmetric-memory probe's device communicators.
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/fabric/nccl/nccl_api.hpp"
#include "kernels/fabric/nccl/scoped_env.hpp"

namespace arbench {

// The requirements of the probe's device communicators: none. From NCCL 2.29 the struct must
// come from the header's initializer (size, magic, version; a zeroed one is rejected).
inline ncclDevCommRequirements_t no_requirements() {
#ifdef NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER
  ncclDevCommRequirements_t reqs = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
#else
  ncclDevCommRequirements_t reqs{};  // NCCL 2.28: a plain struct, zero = nothing required
#endif
  return reqs;
}

}  // namespace arbench
