// `nccl`: ncclAllReduce (see nccl_allreduce.cu).
#pragma once

#include "arbench/variant.hpp"

namespace arbench {

VariantEntry nccl_entry();

}  // namespace arbench
