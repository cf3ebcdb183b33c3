// NcclApi: NCCL loaded at run time (dlopen), never linked. A machine without NCCL can still
// run the host and single-gpu backends, and the cuda backend says what to install (exit 3)
// instead of failing to start. The header's types are used as they are; only the entry points
// are looked up: $ARBENCH_NCCL_LIBRARY alone when it is set (the GPU tests point it at nothing to
// run the cuda backend on a machine without NCCL), else libnccl.so.2 on the loader path, then the
// library found at configure time.
#pragma once

#include <nccl.h>
#include <nccl_device.h>

#include <string>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/nccl/nccl_features.hpp"

namespace arbench {

struct NcclApi {
  decltype(&::ncclGetVersion) GetVersion = nullptr;
  decltype(&::ncclGetErrorString) GetErrorString = nullptr;
  decltype(&::ncclGetLastError) GetLastError = nullptr;
  decltype(&::ncclCommInitAll) CommInitAll = nullptr;
  decltype(&::ncclCommDestroy) CommDestroy = nullptr;
  decltype(&::ncclCommAbort) CommAbort = nullptr;
  // One communicator per process (nccl_process_fabric): the id from process 0, a non-blocking
  // creation polled with a bound.
  decltype(&::ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&::ncclCommInitRankConfig) CommInitRankConfig = nullptr;
  decltype(&::ncclCommGetAsyncError) CommGetAsyncError = nullptr;
  decltype(&::ncclGroupStart) GroupStart = nullptr;
  decltype(&::ncclGroupEnd) GroupEnd = nullptr;
  decltype(&::ncclAllReduce) AllReduce = nullptr;
  // Symmetric memory: null where a library beside the default one lacks them (its nccl-symm is not
  // offered: nccl_features.hpp); the default library has them all.
  decltype(&::ncclMemAlloc) MemAlloc = nullptr;
  decltype(&::ncclMemFree) MemFree = nullptr;
  decltype(&::ncclCommWindowRegister) CommWindowRegister = nullptr;
  decltype(&::ncclCommWindowDeregister) CommWindowDeregister = nullptr;
  // The symmetric-memory capability probe (nccl_device/core.h).
  decltype(&::ncclDevCommCreate) DevCommCreate = nullptr;
  decltype(&::ncclDevCommDestroy) DevCommDestroy = nullptr;

  int version = 0;      // e.g. 22809
  std::string path;     // the library that was loaded, as named (a path, or libnccl.so.2)
  std::string file;     // the file the loader mapped for it (dlinfo), e.g. /usr/lib/.../libnccl.so.2
  std::string build_id; // its ELF build id (hex; empty when it has none): which build this is
  // Empty for the default library; else the label of a library measured beside it
  // (`nccl@<label>`: nccl_libraries.hpp).
  std::string label;

  // The loaded API; throws EnvironmentError (exit 3) saying what to install when NCCL is
  // missing, older than 2.28 or without its symmetric-memory entry points.
  static const NcclApi& get();
  // "2.28.9" or the reason NCCL is unavailable; never throws.
  static std::string version_or_reason();
  // NCCL >= 2.28 could be loaded; never throws.
  static bool available();
};

// Which symmetric-memory entry points `api` has (nccl_features.hpp).
NcclSymmetricEntries nccl_symmetric_entries(const NcclApi& api);

// What loading one NCCL-API library found (load_nccl_library).
struct NcclLoad {
  enum class Problem {
    none,
    not_loaded,   // dlopen failed (detail: dlerror)
    not_nccl,     // no ncclGetVersion, or it failed
    lacks_entry,  // an entry point every NCCL arbench drives has is missing (detail: its name)
    too_old,      // older than 2.14, the oldest arbench drives (detail: why; nccl_features.hpp)
  };
  NcclApi api;  // path, version, file, build_id and the entry points found
  Problem problem = Problem::none;
  std::string detail;
};

// dlopen(path, RTLD_NOW | RTLD_LOCAL), then ncclGetVersion and the version (too_old below 2.14),
// then every entry point arbench calls: the symmetric-memory ones are left null where missing
// (the caller decides: the default library needs them, one beside it runs without nccl-symm).
// The loader matches a name with a '/' by file identity (device and inode), not by SONAME: two
// copies of one library at two paths are two objects, each with its own state; the same file
// twice (or a link to it) is one. A bare name (libnccl.so.2) is answered by any object already
// loaded with that SONAME, so the default library is loaded before any other (nccl_libraries.hpp).
// Never throws; never unloads (NCCL keeps threads of its own).
NcclLoad load_nccl_library(const std::string& path);

// "NCCL 2.28.9" for the default library; "NCCL 2.29.2 (nccl@2.29.2: /opt/nccl/lib/libnccl.so.2)" for
// one beside it (fabric descriptions, banners).
std::string nccl_api_text(const NcclApi& api);

}  // namespace arbench

// Checks an NCCL call; the message carries the call text, file:line, NCCL's error string and
// ncclGetLastError's detail.
#define ARB_NCCL_CHECK(api, call)                                                          \
  do {                                                                                     \
    ncclResult_t arb_r_ = (api).call;                                                      \
    if (arb_r_ != ncclSuccess) ::arbench::throw_nccl(api, arb_r_, #call, __FILE__, __LINE__); \
  } while (0)

namespace arbench {
// A grouped NCCL setup call (ncclCommWindowRegister, ncclDevCommCreate) failed on some rank: the
// ranks whose call went in keep it queued in their communicators, so the fabric that owns them
// must be replaced (Fabric::unusable_reason), never used for another group.
struct NcclGroupError : CaseError {
  explicit NcclGroupError(const std::string& w) : CaseError(w) {}
};

[[noreturn]] void throw_nccl(const NcclApi& api, ncclResult_t r, const char* call, const char* file, int line);

// Call inside ncclGroupStart when one rank's call of a grouped setup collective
// (ncclDevCommCreate, ncclCommWindowRegister) failed: makes the group's ncclGroupEnd run none of
// its calls. NCCL runs those calls as collectives at ncclGroupEnd, and ending a group that holds
// only some ranks' calls would run them without the others. NCCL marks a group failed when it
// rejects any call inside it, and then ends it by cleaning up; this makes it reject one (an
// all-reduce on no communicator). The ranks whose call went in keep it queued in their
// communicator: the caller must stop using that feature of those communicators.
void abandon_group(const NcclApi& api);
}
