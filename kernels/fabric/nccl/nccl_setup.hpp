// What the nccl fabrics share when they set up communicators: NCCL_* variables set only while a
// communicator is created (NCCL reads NCCL_ALGO / NCCL_PROTO then), and the requirements of the
// symmetric-memory probe's device communicators.
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/fabric/nccl/nccl_api.hpp"

namespace arbench {

// Sets environment variables for its lifetime, then restores the previous values.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& vars) {
    for (const auto& [k, v] : vars) {
      const char* old = std::getenv(k.c_str());
      saved_.push_back({k, old ? std::optional<std::string>(old) : std::nullopt});
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) setenv(k.c_str(), v->c_str(), 1);
      else unsetenv(k.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

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
