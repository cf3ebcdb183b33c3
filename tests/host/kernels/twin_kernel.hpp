// Every custom kernel, by name: what the twin matrix (twin_points.hpp; not the FP8 kernels, see
// test_twin_faithful.cpp), the mutation score (tests/mutation/) and the model check (tests/model/)
// iterate over. Dependency-free, so the model checker, which links no twin, can name the kernels too.
#pragma once

namespace arbench::testing {

// Every custom kernel. add_rmsnorm (the norm-only kernel) runs as unfused-oneshot: oneshot-pull,
// then the norm kernel. oneshot-fp8 and twoshot-fp8 are the oneshot-pull and twoshot protocols
// with the FP8 payload (include/arbench/algo/fp8/fp8_protocols.hpp).
enum class TwinKernel {
  oneshot_pull,
  oneshot_push,
  twoshot,
  ring,
  add_rmsnorm,
  fused_oneshot,
  fused_twoshot,
  island_oneshot,
  island_twoshot,
  fused_island,
  fused_island_twoshot,
  oneshot_fp8,
  twoshot_fp8
};

inline constexpr TwinKernel kTwinKernels[] = {
    TwinKernel::oneshot_pull,  TwinKernel::oneshot_push,   TwinKernel::twoshot,        TwinKernel::ring,
    TwinKernel::add_rmsnorm,   TwinKernel::fused_oneshot,  TwinKernel::fused_twoshot,  TwinKernel::island_oneshot,
    TwinKernel::island_twoshot, TwinKernel::fused_island, TwinKernel::fused_island_twoshot, TwinKernel::oneshot_fp8,
    TwinKernel::twoshot_fp8};

inline const char* twin_kernel_name(TwinKernel k) {
  switch (k) {
    case TwinKernel::oneshot_pull: return "oneshot-pull";
    case TwinKernel::oneshot_push: return "oneshot-push";
    case TwinKernel::twoshot: return "twoshot";
    case TwinKernel::ring: return "ring";
    case TwinKernel::add_rmsnorm: return "add_rmsnorm";
    case TwinKernel::fused_oneshot: return "fused-oneshot";
    case TwinKernel::fused_twoshot: return "fused-twoshot";
    case TwinKernel::island_oneshot: return "island-oneshot";
    case TwinKernel::island_twoshot: return "island-twoshot";
    case TwinKernel::fused_island: return "fused-island-oneshot";
    case TwinKernel::fused_island_twoshot: return "fused-island-twoshot";
    case TwinKernel::oneshot_fp8: return "oneshot-fp8";
    case TwinKernel::twoshot_fp8: return "twoshot-fp8";
  }
  return "?";
}

inline bool is_norm_kernel(TwinKernel k) {
  return k == TwinKernel::add_rmsnorm || k == TwinKernel::fused_oneshot || k == TwinKernel::fused_twoshot ||
         k == TwinKernel::fused_island || k == TwinKernel::fused_island_twoshot;
}

inline bool is_island_kernel(TwinKernel k) {
  return k == TwinKernel::island_oneshot || k == TwinKernel::island_twoshot || k == TwinKernel::fused_island ||
         k == TwinKernel::fused_island_twoshot;
}

constexpr bool is_fp8_kernel(TwinKernel k) { return k == TwinKernel::oneshot_fp8 || k == TwinKernel::twoshot_fp8; }

// The exact kernel whose protocol an FP8 kernel runs (the kernel itself for the others): every
// mutant of the score that targets it must target the FP8 kernel too (tests/mutation/main.cpp).
constexpr TwinKernel protocol_kernel(TwinKernel k) {
  if (k == TwinKernel::oneshot_fp8) return TwinKernel::oneshot_pull;
  if (k == TwinKernel::twoshot_fp8) return TwinKernel::twoshot;
  return k;
}

}  // namespace arbench::testing
