// The built-in registry: host twins plus GPU kernels and NCCL.
#include "arbench/variant.hpp"

namespace arbench {

const Registry& Registry::builtin() {
  static const Registry reg = [] {
    Registry r;
    register_host_variants(r);
    register_gpu_variants(r);
    return r;
  }();
  return reg;
}

}  // namespace arbench
