// `nccl` (and its configurations) and `nccl-symm`: ncclAllReduce (see nccl_allreduce.cu).
#pragma once

#include <vector>

#include "arbench/variant.hpp"

namespace arbench {

struct NcclApi;  // kernels/fabric/nccl/nccl_api.hpp

VariantEntry nccl_entry();
VariantEntry nccl_symm_entry();

// What NCCL moves between ranks (nccl_traffic.cpp; arbench/traffic.hpp): `nccl` and its
// configurations (the algorithm and protocol forced, set in NCCL_ALGO / NCCL_PROTO, or every one
// NCCL may choose on one PCIe node), `nccl-symm` (NCCL's symmetric kernels, or `nccl`'s traffic
// where the case says they were off).
Traffic nccl_traffic(const TrafficQuery& q);
Traffic nccl_symm_traffic(const TrafficQuery& q);

// The variants of an NCCL-API library measured beside the default one
// (kernels/fabric/nccl/nccl_libraries.hpp): `nccl@<label>` with the forced configurations
// (`nccl@<label>[ring/ll]`, `.../ch:N`, skipped before NCCL 2.28; not `[tuned]`) and
// `nccl-symm@<label>` where the library has symmetric memory (kernels/fabric/nccl/nccl_features.hpp),
// each running on that library's communicators. `library` must outlive the entries (loaded libraries are kept for
// the process).
std::vector<VariantEntry> nccl_library_entries(const NcclApi& library);

}  // namespace arbench
