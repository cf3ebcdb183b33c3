// The `arbench run` lines settings print where a result lacks a measurement: each measures what
// is missing at the sizes the result already covers, into a file to give `arbench settings`
// alongside the first.
#pragma once

#include <cstdint>
#include <string>

#include "settings/measured.hpp"

namespace arbench {

// The NCCL configurations arbench forces (kernels/nccl: ring and tree with LL and Simple; LL128
// only where every GPU pair is NVLink-connected) and the channel counts to sweep.
inline constexpr const char* kNcclConfigVariants = "nccl,nccl[ring/ll],nccl[ring/simple],nccl[tree/ll],nccl[tree/simple]";
inline constexpr const char* kNcclChannelSweep = "1,2,4,8,16";

// 1024 -> "1K", 64 MiB -> "64M", 1000 -> "1000".
std::string size_arg(std::uint64_t bytes);

// `arbench run --backend cuda --gpus W --family allreduce --variants 'V' -b MIN -e MAX [extra] --out OUT`.
std::string allreduce_run_line(const Measured& m, int world, const std::string& variants, const std::string& extra,
                               const std::string& out);
// The fused family at the result's hidden size (8192 when none), 1..2048 tokens.
std::string fused_run_line(const Measured& m, int world, const std::string& out);

}  // namespace arbench
