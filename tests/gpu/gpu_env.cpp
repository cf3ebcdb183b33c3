// Process-wide settings of the GPU test binary that must precede its first CUDA call: every kernel
// loaded with the context (kernels/fabric/cuda/module_loading.hpp), and the single_gpu fabric's
// rank streams need a hardware queue each (kernels/fabric/cuda/single_gpu_env.hpp).
// A static initialiser runs before main, so before any test creates a CUDA context.
#include "arbench/fabric.hpp"
#include "kernels/fabric/cuda/module_loading.hpp"
#include "kernels/fabric/cuda/single_gpu_env.hpp"

namespace {

const bool kPrepared = [] {
  arbench::prepare_module_loading();
  arbench::prepare_single_gpu_env(arbench::kMaxRanks);
  return true;
}();

}  // namespace
