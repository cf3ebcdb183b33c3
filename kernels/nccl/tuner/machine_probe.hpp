// What the tuner plugin checks a table against: the machine it runs on (CPU model, GPU models,
// CUDA driver) and the NCCL that loaded it. Read inside the host program through the C entry
// points of libcuda and NCCL found at run time (dlsym), so the plugin links neither; a fact that
// cannot be read is reported, and the plugin then applies no table.
#pragma once

#include <string>

#include "arbench/tuner/tuner_table.hpp"

namespace arbench::tuner {

// This machine's facts; `problem` says which could not be read (empty when all were).
Machine probe_machine(std::string& problem);

// The version code (22809 = 2.28.9) of the NCCL whose code address `caller` lies in (the
// library that called the plugin), else of any ncclGetVersion the process exports; 0 when none
// answers.
int probe_nccl_version(const void* caller);

}  // namespace arbench::tuner
