// Skip a GPU test, with the reason, when this machine has no usable CUDA device.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#define ARB_REQUIRE_GPUS(n)                                                                     \
  do {                                                                                          \
    int arb_count_ = 0;                                                                         \
    cudaError_t arb_e_ = cudaGetDeviceCount(&arb_count_);                                       \
    if (arb_e_ != cudaSuccess) {                                                                \
      (void)cudaGetLastError();                                                                 \
      GTEST_SKIP() << "no CUDA device (" << cudaGetErrorString(arb_e_) << ")";                \
    }                                                                                           \
    if (arb_count_ < (n)) GTEST_SKIP() << "needs " << (n) << " GPU(s), found " << arb_count_;  \
  } while (0)
