// A kernel of known duration, for the known-answer tests of the measurement.
#pragma once

#include <cstdint>

namespace arbench::testing {

// Enqueues on `stream` (a cudaStream_t) one single-thread kernel that spins on %globaltimer
// until `ns` nanoseconds have passed since it started.
void launch_spin(void* stream, std::uint64_t ns);

}  // namespace arbench::testing
