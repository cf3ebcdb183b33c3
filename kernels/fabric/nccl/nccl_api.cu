#include "kernels/fabric/nccl/nccl_api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"

#ifndef ARBENCH_NCCL_LIBRARY
#define ARBENCH_NCCL_LIBRARY "libnccl.so.2"
#endif

namespace arbench {
namespace {

constexpr int kMinVersion = 22800;  // 2.28.0: symmetric windows and ncclDevCommCreate

struct Loaded {
  NcclApi api;
  std::string error;  // empty when loaded
};

Loaded load() {
  Loaded l;
  std::string tried;
  void* h = nullptr;
  // ARBENCH_NCCL_LIBRARY names the one library to load (no other is tried: a path that does not
  // load is reported, not silently replaced by another NCCL); else the loader's libnccl.so.2, then
  // the library found at configure time.
  std::string candidates[3];
  if (const char* env = std::getenv("ARBENCH_NCCL_LIBRARY"); env != nullptr && *env != '\0') {
    candidates[0] = env;
  } else {
    candidates[1] = "libnccl.so.2";
    candidates[2] = ARBENCH_NCCL_LIBRARY;
  }
  for (const auto& c : candidates) {
    if (c.empty()) continue;
    h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      l.api.path = c;
      break;
    }
    const char* why = dlerror();
    tried += "\n  " + c + ": " + (why ? why : "not found");
  }
  if (!h) {
    l.error = "NCCL (libnccl.so.2, version >= 2.28) could not be loaded:" + tried +
              "\nInstall NCCL 2.28 (e.g. the libnccl2 package or the nvidia-nccl-cu13 wheel) and put it on "
              "LD_LIBRARY_PATH, or set ARBENCH_NCCL_LIBRARY=/path/to/libnccl.so.2.";
    return l;
  }
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    if (!fn && l.error.empty()) l.error = std::string("NCCL at ") + l.api.path + " lacks " + name;
  };
  sym(l.api.GetVersion, "ncclGetVersion");
  sym(l.api.GetErrorString, "ncclGetErrorString");
  sym(l.api.GetLastError, "ncclGetLastError");
  sym(l.api.CommInitAll, "ncclCommInitAll");
  sym(l.api.CommDestroy, "ncclCommDestroy");
  sym(l.api.CommAbort, "ncclCommAbort");
  sym(l.api.GetUniqueId, "ncclGetUniqueId");
  sym(l.api.CommInitRankConfig, "ncclCommInitRankConfig");
  sym(l.api.CommGetAsyncError, "ncclCommGetAsyncError");
  sym(l.api.GroupStart, "ncclGroupStart");
  sym(l.api.GroupEnd, "ncclGroupEnd");
  sym(l.api.AllReduce, "ncclAllReduce");
  sym(l.api.MemAlloc, "ncclMemAlloc");
  sym(l.api.MemFree, "ncclMemFree");
  sym(l.api.CommWindowRegister, "ncclCommWindowRegister");
  sym(l.api.CommWindowDeregister, "ncclCommWindowDeregister");
  sym(l.api.DevCommCreate, "ncclDevCommCreate");
  sym(l.api.DevCommDestroy, "ncclDevCommDestroy");
  if (!l.error.empty()) {
    l.error += "; NCCL >= 2.28 is required. Install NCCL 2.28 or set ARBENCH_NCCL_LIBRARY.";
    return l;
  }
  l.api.GetVersion(&l.api.version);
  if (l.api.version < kMinVersion)
    l.error = "NCCL " + nccl_version_text(l.api.version) + " at " + l.api.path +
              " is too old: arbench needs NCCL >= 2.28. Install NCCL 2.28 or set ARBENCH_NCCL_LIBRARY.";
  return l;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

const NcclApi& NcclApi::get() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw EnvironmentError(l.error);
  return l.api;
}

std::string NcclApi::version_or_reason() {
  const Loaded& l = loaded();
  return l.error.empty() ? nccl_version_text(l.api.version) : l.error;
}

bool NcclApi::available() { return loaded().error.empty(); }

void throw_nccl(const NcclApi& api, ncclResult_t r, const char* call, const char* file, int line) {
  std::string msg = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    api.GetErrorString(r);
  if (const char* last = api.GetLastError(nullptr); last && *last) msg += " (" + std::string(last) + ")";
  throw CaseError(msg);
}

void abandon_group(const NcclApi& api) {
  (void)api.AllReduce(nullptr, nullptr, 0, ncclInt8, ncclSum, nullptr, nullptr);
}

}  // namespace arbench
