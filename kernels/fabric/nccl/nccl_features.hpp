// What an NCCL-API library measured beside the default one (`--nccl-lib`, nccl_libraries.hpp) can
// run, from its version and the entry points it exports; host code only (tested without NCCL:
// tests/host/fabric/test_nccl_features.cpp).
//
// Where each boundary lies in NVIDIA/nccl, read at the first tag that has it and the tag before,
// which does not (src/nccl.h.in unless said):
//   ncclGetLastError              v2.13.4-1 (absent at v2.12.12-1)
//   ncclCommInitRankConfig        v2.14.3-1 (absent at v2.13.4-1); from that tag on, a config of a
//                                 newer NCCL's (larger) ncclConfig_t is read up to the library's
//                                 own size (src/init.cc, parseCommConfig: realSize capped at
//                                 sizeof(ncclConfig_t); the same at v2.18.1-1 and v2.26.6-1), so
//                                 NCCL_CONFIG_INITIALIZER of the headers arbench is built with
//                                 drives it
//   ncclMemAlloc, ncclMemFree     v2.19.1-1 (absent at v2.18.6-1)
//   ncclCommWindowRegister, ncclCommWindowDeregister, NCCL_WIN_COLL_SYMMETRIC
//                                 v2.27.3-1 (absent at v2.26.6-1)
//   ncclDevCommCreate, ncclDevCommDestroy
//                                 v2.28.3-1, src/include/nccl_device/core.h (absent at v2.27.7-1)
//   tuner plugin ABI v5           v2.28.3-1, src/plugin/tuner/tuner_v5.cc (v2.27.7-1 reads v2 to v4
//                                 only: src/plugin/tuner/, and goes on without a plugin it cannot
//                                 read: src/plugin/tuner.cc)
// So the oldest NCCL arbench can drive is 2.14 (the entry points of `nccl@<label>` and its forced
// algorithm/protocol configurations, NCCL_ALGO and NCCL_PROTO being far older). `nccl-symm@<label>`
// also needs the symmetric windows and the device API: arbench makes its symmetric buffers with
// ncclMemAlloc + ncclCommWindowRegister and checks them with ncclDevCommCreate (nccl_fabric.hpp),
// so it is offered where all six exist (2.28 on). The channel configurations (`/ch:N`) need
// arbench's tuner plugin, which exports ABIs v5 and v6 only (kernels/nccl/tuner/): 2.28 on.
#pragma once

#include <string>

#include "kernels/fabric/nccl/nccl_version.hpp"

namespace arbench {

inline constexpr int kNcclOldestDriven = 21400;      // 2.14: ncclCommInitRankConfig
inline constexpr int kNcclTunerPluginV5 = 22800;     // 2.28: the tuner ABI arbench's plugin exports

// The symmetric-memory entry points a library exports (the others are required: nccl_api.hpp).
struct NcclSymmetricEntries {
  bool mem_alloc = false;  // ncclMemAlloc and ncclMemFree
  bool windows = false;    // ncclCommWindowRegister and ncclCommWindowDeregister
  bool dev_comm = false;   // ncclDevCommCreate and ncclDevCommDestroy
};

// Why a library of `version` with `have` cannot run `nccl-symm@<label>` ("" when it can): what it
// lacks, and from which NCCL each comes.
inline std::string nccl_symmetric_missing(int version, const NcclSymmetricEntries& have) {
  std::string missing;
  auto add = [&](bool ok, const char* what) {
    if (!ok) missing += std::string(missing.empty() ? "" : ", ") + what;
  };
  add(have.mem_alloc, "ncclMemAlloc (NCCL 2.19)");
  add(have.windows, "ncclCommWindowRegister (symmetric windows, NCCL 2.27)");
  add(have.dev_comm, "ncclDevCommCreate (the device API arbench checks its windows with, NCCL 2.28)");
  if (missing.empty()) return {};
  return "NCCL " + nccl_version_text(version) + " has no " + missing;
}

// Why a library of `version` cannot run the channel configurations (`[<algo>/<proto>/ch:N]`):
// "" from 2.28.
inline std::string nccl_channels_missing(int version) {
  if (version >= kNcclTunerPluginV5) return {};
  return "NCCL " + nccl_version_text(version) +
         " reads no tuner plugin of ABI v5 or v6 (from NCCL 2.28), the only ones arbench's plugin exports, "
         "and goes on without it: the channel count would not be forced";
}

// Why arbench cannot drive a library of `version` at all ("" from 2.14).
inline std::string nccl_too_old(int version) {
  if (version >= kNcclOldestDriven) return {};
  return "NCCL " + nccl_version_text(version) +
         " is older than 2.14, the oldest arbench can drive: it has no ncclCommInitRankConfig (NCCL 2.14), with which "
         "arbench creates every communicator";
}

}  // namespace arbench
