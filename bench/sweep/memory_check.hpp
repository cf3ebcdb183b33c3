// The host backend keeps every rank's buffers in this process's memory, so a sweep whose largest
// case does not fit would end mid-run in std::bad_alloc or the kernel's OOM killer. The run
// estimates each case's memory up front (Harness::memory_bytes) and refuses such a sweep before
// any case runs, with the amounts and what to lower.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "arbench/core/case.hpp"

namespace arbench {

// MemAvailable from /proc/meminfo (what can be allocated without swapping); nullopt if unknown.
std::optional<std::size_t> available_host_memory();

// Throws UsageError naming the largest case, its estimate and `available` when any case needs
// more than `available` bytes.
void check_memory_fits(const std::vector<Case>& cases, const std::function<std::size_t(const Case&)>& need,
                       std::size_t available);

}  // namespace arbench
