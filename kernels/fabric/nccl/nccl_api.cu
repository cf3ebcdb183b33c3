#include "kernels/fabric/nccl/nccl_api.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"

#ifndef ARBENCH_NCCL_LIBRARY
#define ARBENCH_NCCL_LIBRARY "libnccl.so.2"
#endif

namespace arbench {
namespace {

// The default library: 2.28.0, symmetric windows and ncclDevCommCreate (the custom kernels' peer
// memory and their device API). A library beside it may be older (nccl_features.hpp).
constexpr int kMinVersion = 22800;

// The object's ELF build id (NT_GNU_BUILD_ID) as hex, read from its program headers in memory;
// empty when it has none.
std::string build_id_of(const link_map* lm) {
  struct Find {
    const link_map* lm;
    std::string hex;
  } find{lm, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* f = static_cast<Find*>(data);
        if (info->dlpi_addr != f->lm->l_addr || info->dlpi_name == nullptr ||
            std::string(info->dlpi_name) != f->lm->l_name)
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
          const char* end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto* n = reinterpret_cast<const ElfW(Nhdr)*>(p);
            const char* name = p + sizeof(ElfW(Nhdr));
            const char* desc = name + ((n->n_namesz + 3) & ~3u);
            if (desc + n->n_descsz > end) break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
              static const char digits[] = "0123456789abcdef";
              for (unsigned k = 0; k < n->n_descsz; ++k) {
                const auto b = static_cast<unsigned char>(desc[k]);
                f->hex += digits[b >> 4];
                f->hex += digits[b & 15];
              }
              return 1;
            }
            p = desc + ((n->n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &find);
  return find.hex;
}

struct Loaded {
  NcclApi api;
  std::string error;  // empty when loaded
};

Loaded load() {
  Loaded l;
  std::string tried;
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
  const std::string install = "Install NCCL 2.28 or set ARBENCH_NCCL_LIBRARY.";
  for (const auto& c : candidates) {
    if (c.empty()) continue;
    NcclLoad one = load_nccl_library(c);
    if (one.problem == NcclLoad::Problem::not_loaded) {
      tried += "\n  " + c + ": " + one.detail;
      continue;
    }
    l.api = std::move(one.api);
    switch (one.problem) {
      case NcclLoad::Problem::none: break;
      case NcclLoad::Problem::not_nccl:
      case NcclLoad::Problem::lacks_entry:
        l.error = "NCCL at " + c + " lacks " + one.detail + "; NCCL >= 2.28 is required. " + install;
        break;
      case NcclLoad::Problem::not_loaded:  // handled above
      case NcclLoad::Problem::too_old:      // below, with the default's own floor
        break;
    }
    if (l.error.empty() && l.api.version < kMinVersion)
      l.error = "NCCL " + nccl_version_text(l.api.version) + " at " + c +
                " is too old: arbench needs NCCL >= 2.28 as its default library (an older one can be measured "
                "beside it, from 2.14: arbench run --nccl-lib). " + install;
    else if (const std::string missing = nccl_symmetric_missing(l.api.version, nccl_symmetric_entries(l.api));
             l.error.empty() && !missing.empty())
      l.error = "NCCL at " + c + ": " + missing + "; the default library needs all of NCCL 2.28's symmetric memory. " +
                install;
    return l;
  }
  l.error = "NCCL (libnccl.so.2, version >= 2.28) could not be loaded:" + tried +
            "\nInstall NCCL 2.28 (e.g. the libnccl2 package or the nvidia-nccl-cu13 wheel) and put it on "
            "LD_LIBRARY_PATH, or set ARBENCH_NCCL_LIBRARY=/path/to/libnccl.so.2.";
  return l;
}

}  // namespace

NcclLoad load_nccl_library(const std::string& path) {
  NcclLoad l;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    l.problem = NcclLoad::Problem::not_loaded;
    l.detail = why ? why : "not found";
    return l;
  }
  l.api.path = path;
  if (link_map* lm = nullptr; dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm != nullptr) {
    l.api.file = lm->l_name;
    l.api.build_id = build_id_of(lm);
  }
  auto sym = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    if (!fn && l.problem == NcclLoad::Problem::none) {
      l.problem = NcclLoad::Problem::lacks_entry;
      l.detail = name;
    }
  };
  sym(l.api.GetVersion, "ncclGetVersion");
  if (l.problem != NcclLoad::Problem::none) {
    l.problem = NcclLoad::Problem::not_nccl;
    return l;
  }
  if (l.api.GetVersion(&l.api.version) != ncclSuccess) {
    l.problem = NcclLoad::Problem::not_nccl;
    l.detail = "a working ncclGetVersion";
    return l;
  }
  if (std::string why = nccl_too_old(l.api.version); !why.empty()) {
    l.problem = NcclLoad::Problem::too_old;
    l.detail = std::move(why);
    return l;
  }
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
  if (l.problem != NcclLoad::Problem::none) return l;
  // Symmetric memory (nccl_features.hpp): each pair is kept only whole.
  auto optional = [&](auto& a, const char* name_a, auto& b, const char* name_b) {
    a = reinterpret_cast<std::remove_reference_t<decltype(a)>>(dlsym(h, name_a));
    b = reinterpret_cast<std::remove_reference_t<decltype(b)>>(dlsym(h, name_b));
    if (!a || !b) {
      a = nullptr;
      b = nullptr;
    }
  };
  optional(l.api.MemAlloc, "ncclMemAlloc", l.api.MemFree, "ncclMemFree");
  optional(l.api.CommWindowRegister, "ncclCommWindowRegister", l.api.CommWindowDeregister, "ncclCommWindowDeregister");
  optional(l.api.DevCommCreate, "ncclDevCommCreate", l.api.DevCommDestroy, "ncclDevCommDestroy");
  return l;
}

namespace {

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

NcclSymmetricEntries nccl_symmetric_entries(const NcclApi& api) {
  return {api.MemAlloc != nullptr, api.CommWindowRegister != nullptr, api.DevCommCreate != nullptr};
}

std::string nccl_api_text(const NcclApi& api) {
  const std::string v = "NCCL " + nccl_version_text(api.version);
  return api.label.empty() ? v : v + " (nccl@" + api.label + ": " + api.path + ")";
}

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
