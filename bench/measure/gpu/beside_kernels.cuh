// The background load's kernels (run --beside): short, GPU-filling, waiting on nothing, so a
// case's blocks at a higher stream priority take each SM as soon as one of these blocks retires.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace arbench::beside {

inline constexpr int kThreads = 256;
inline constexpr int kBlocksPerSm = 4;  // 32 warps per SM: enough to fill the FMA pipes and hide DRAM latency

// FMA-bound: every thread runs 8 independent multiply-add chains for `iters` rounds.
void launch_fma(int sms, int iters, float* sink, cudaStream_t s);
// Memory-bound: the grid reads `count` 16-byte words of `buf` (n16 of them) from `start`, wrapping.
void launch_memory(int sms, const void* buf, std::size_t n16, std::size_t start, std::size_t count, float* sink,
                   cudaStream_t s);

}  // namespace arbench::beside
