// ARB_HD: functions shared by CUDA kernels and their host twins.
// Under nvcc it marks a function host+device and forces inlining; in plain C++ it is `inline`.
#pragma once

#if defined(__CUDACC__)
#define ARB_HD __host__ __device__ __forceinline__
#define ARB_HD_CONSTEXPR __host__ __device__ constexpr
#else
#define ARB_HD inline
#define ARB_HD_CONSTEXPR constexpr
#endif
