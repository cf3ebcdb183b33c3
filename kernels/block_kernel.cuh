// The CUDA entry and launcher of a protocol that runs per block (include/arbench/algo/), written
// once for every kernel file of symm/, ring/, fused/ and island/.
//
//   ARB_BLOCK_KERNEL(kernel, launcher, Policy, Args, block) defines
//     template <DType D> __global__ void kernel(const Args a)    (in an anonymous namespace)
//       __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm); each block runs
//       block<DeviceMem, D>(a, its BlockCtx). A timeout or protocol error is recorded in the
//       rank's state (a.state, or a.s.state for the fused forms), which the variant's
//       check_errors() reads after the op: the kernel itself never fails.
//     void launcher(const Args& a, DType t, int blocks, Stream stream)
//       enqueues kernel<t> with `blocks` x Policy::kThreads threads on the rank's stream (a
//       cudaStream_t, never the legacy default stream).
//   ARB_NORM_KERNEL(kernel, launcher, Policy, Args, block) the same for the protocols that end in
//     residual add + RMSNorm: each block also has algo::kNormLanes floats of __shared__ memory
//     (the norm's lane tree), passed as block's third argument.
//
// A macro, not a kernel template over the protocol, so that every kernel keeps its own name:
// ptxas reports, profiles, scripts/kernel_resources.py's expectations and
// scripts/ptx_memory_ops.expected all key on it. The body is the one the kernel files had, so
// the PTX is theirs.
#pragma once

#include <cuda_runtime.h>

#include "arbench/algo/mem_policy.hpp"
#include "arbench/core/cuda_check.hpp"
#include "arbench/core/dtype.hpp"
#include "arbench/fabric.hpp"
#include "kernels/mem_device.cuh"

// The kernel's signature, then its block context (from the CUDA built-ins).
#define ARB_KERNEL_HEAD_(kernel, Policy, Args) \
  template <DType D>                           \
  __global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm) kernel(const Args a)
#define ARB_BLOCK_CTX_(c)                                                                    \
  const algo::BlockCtx c{static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x),          \
                         static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)}

#define ARB_KERNEL_LAUNCHER_(kernel, launcher, Policy, Args)                                       \
  void launcher(const Args& a, DType t, int blocks, Stream stream) {                               \
    const auto s = static_cast<cudaStream_t>(stream);                                              \
    with_dtype(t, [&](auto d) { kernel<decltype(d)::value><<<blocks, Policy::kThreads, 0, s>>>(a); });\
    ARB_CUDA_CHECK(cudaGetLastError());                                                            \
  }

#define ARB_BLOCK_KERNEL(kernel, launcher, Policy, Args, block) \
  namespace {                                                   \
  ARB_KERNEL_HEAD_(kernel, Policy, Args) {                      \
    ARB_BLOCK_CTX_(c);                                          \
    block<DeviceMem, D>(a, c);                                  \
  }                                                             \
  }                                                             \
  ARB_KERNEL_LAUNCHER_(kernel, launcher, Policy, Args)

#define ARB_NORM_KERNEL(kernel, launcher, Policy, Args, block) \
  namespace {                                                  \
  ARB_KERNEL_HEAD_(kernel, Policy, Args) {                     \
    __shared__ float lanes[algo::kNormLanes];                  \
    ARB_BLOCK_CTX_(c);                                         \
    block<DeviceMem, D>(a, c, lanes);                          \
  }                                                            \
  }                                                            \
  ARB_KERNEL_LAUNCHER_(kernel, launcher, Policy, Args)
