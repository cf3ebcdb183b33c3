// ARB_HD: functions shared by CUDA kernels and their host twins.
// Under nvcc it marks a function host+device and forces inlining; in plain C++ it forces inlining
// too. Besides compiling the protocols for the host twins the way the kernels get them, that
// keeps GCC's ThreadSanitizer from missing stores: it does not instrument a call whose returned
// struct is stored straight into memory (`own[k] = load_pack<D>(...)` with load_pack out of
// line), so the twins would race on staging unseen.
#pragma once

#if defined(__CUDACC__)
#define ARB_HD __host__ __device__ __forceinline__
#define ARB_HD_CONSTEXPR __host__ __device__ constexpr
#else
#define ARB_HD inline __attribute__((always_inline))
#define ARB_HD_CONSTEXPR constexpr
#endif
