// `nccl` (and its configurations) and `nccl-symm`: ncclAllReduce (see nccl_allreduce.cu).
#pragma once

#include "arbench/variant.hpp"

namespace arbench {

VariantEntry nccl_entry();
VariantEntry nccl_symm_entry();

}  // namespace arbench
