// Whether NCCL's own symmetric kernels can run, so that `nccl-symm` measures them (host logic).
//
// Up to NCCL 2.28 (NVIDIA/nccl v2.28.9-1, src/sym_kernels.cc, ncclSymkAvailable) an all-reduce on
// symmetric windows may pick a symmetric kernel on any box whose GPUs reach each other (PCIe
// P2P included). From 2.29.2 on (v2.29.2-1 and v2.30.7-1, the same function) it returns false
// unless `comm->isAllDirectNvlink`: on a PCIe box `nccl-symm` then runs NCCL's ring/tree on
// symmetric buffers, plain NCCL under another name. Such a case is labelled and kept out of the
// comparisons that would credit symmetric memory (`arbench settings`).
#pragma once

#include <string>

namespace arbench {

// The first NCCL release whose symmetric kernels need every GPU pair NVLink-connected.
inline constexpr int kNcclSymmNvlinkOnlyCode = 22902;  // 2.29.2, NCCL_VERSION_CODE form

// "2.29.2" (or "2.29.2+cuda13.0", as NCCL reports itself) → 22902; -1 when it does not parse.
int nccl_version_code(const std::string& version);

// Why NCCL `version` cannot run its symmetric kernels on GPUs that are (`all_nvlink`) or are not
// all NVLink-connected; empty when it can, or when the version is unknown (nothing is claimed).
std::string nccl_symm_kernels_off(const std::string& version, bool all_nvlink);

}  // namespace arbench
