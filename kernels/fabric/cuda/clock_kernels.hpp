// Small kernels on the device's %globaltimer (docs/latency-breakdown.md): a hold (arrival skew,
// --skew), a phase mark (the entry and exit marks around an opaque collective), and the timer's
// resolution. Each runs one thread on the stream it is given.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace arbench {

// Spins `ns` nanoseconds of %globaltimer on `stream`: what follows on the stream starts that late.
void launch_hold(std::uint64_t ns, cudaStream_t stream);
// Writes %globaltimer into rec[mark] (block 0's row of a phase record) when the stream gets there.
void launch_phase_marker(std::uint64_t* rec, int mark, cudaStream_t stream);
// Writes into *out the smallest non-zero step between back-to-back %globaltimer reads, in ns
// (0: no step seen). `out` is device memory.
void launch_timer_resolution(std::uint64_t* out, cudaStream_t stream);

}  // namespace arbench
