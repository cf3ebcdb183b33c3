// `nccl-symm`: ncclAllReduce on NCCL symmetric windows (see nccl_symm.cu).
#pragma once

#include "arbench/variant.hpp"

namespace arbench {

VariantEntry nccl_symm_entry();

}  // namespace arbench
