// CUDA_DEVICE_MAX_CONNECTIONS for the single_gpu fabric.
//
// Why: N virtual ranks on one GPU run N kernels that wait on each other, so the N rank streams
// must execute concurrently. CUDA maps streams onto a fixed number of hardware work queues
// (CUDA_DEVICE_MAX_CONNECTIONS, default 8, at most 32), read once when the process creates its
// CUDA context; two rank streams sharing a queue run one after the other, and the first waits
// for the second until it times out. The variable must therefore be set before the first CUDA
// call that creates a context (prepare_single_gpu_env, from `arbench run` and the GPU tests).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace arbench {

inline constexpr const char* kMaxConnectionsVar = "CUDA_DEVICE_MAX_CONNECTIONS";
// As many queues as CUDA allows: headroom for streams the process created before the fabric's
// (their queues are assigned round-robin in creation order).
inline constexpr int kSingleGpuConnections = 32;

// The value to set so that `ranks` streams get a queue each, or nullopt when `current` (the
// variable's value, or nullptr when unset) already allows it.
inline std::optional<std::string> max_connections_to_set(const char* current, int ranks) {
  if (current != nullptr && *current != '\0') {
    char* end = nullptr;
    const long v = std::strtol(current, &end, 10);
    if (end != current && *end == '\0' && v >= ranks) return std::nullopt;
  }
  return std::to_string(kSingleGpuConnections);
}

// Raises the variable in this process when needed. Call before any thread starts and before
// the first CUDA call that creates a context (later it has no effect).
inline void prepare_single_gpu_env(int ranks) {
  if (auto v = max_connections_to_set(std::getenv(kMaxConnectionsVar), ranks)) setenv(kMaxConnectionsVar, v->c_str(), 1);
}

}  // namespace arbench
