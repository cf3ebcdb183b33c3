// Reading the machine facts and NCCL's version from inside the host program; see machine_probe.hpp.
#include "kernels/nccl/tuner/machine_probe.hpp"

#include <dlfcn.h>

#include <fstream>
#include <sstream>

namespace arbench::tuner {
namespace {

// The CUDA driver API's entry points used here (cuda.h: CUresult is an int-sized enum, CUdevice an
// int); looked up by name so the plugin needs no CUDA at link time.
using CuInit = int (*)(unsigned int);
using CuDriverGetVersion = int (*)(int*);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetName = int (*)(char*, int, int);
using NcclGetVersion = int (*)(int*);

// A symbol the process already has (libcuda loaded by the CUDA runtime, or a test's stand-in),
// else libcuda.so.1's (opened once; it stays loaded, as it does in any CUDA program).
void* cuda_symbol(const char* name) {
  if (void* p = dlsym(RTLD_DEFAULT, name)) return p;
  static void* const lib = [] {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return h != nullptr ? h : dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  }();
  return lib != nullptr ? dlsym(lib, name) : nullptr;
}

template <class F>
F cuda_fn(const char* name) {
  return reinterpret_cast<F>(cuda_symbol(name));
}

}  // namespace

Machine probe_machine(std::string& problem) {
  Machine m;
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream text;
  text << in.rdbuf();
  m.cpu = cpu_model_from_cpuinfo(text.str());

  const auto init = cuda_fn<CuInit>("cuInit");
  const auto driver_version = cuda_fn<CuDriverGetVersion>("cuDriverGetVersion");
  const auto count = cuda_fn<CuDeviceGetCount>("cuDeviceGetCount");
  const auto get = cuda_fn<CuDeviceGet>("cuDeviceGet");
  const auto get_name = cuda_fn<CuDeviceGetName>("cuDeviceGetName");
  if (!init || !driver_version || !count || !get || !get_name) {
    problem = "the CUDA driver (libcuda.so.1) could not be found, so the GPUs and the driver cannot be compared";
    return m;
  }
  int v = 0, n = 0;
  if (init(0) != 0 || driver_version(&v) != 0 || count(&n) != 0) {
    problem = "the CUDA driver did not answer (cuInit, cuDriverGetVersion or cuDeviceGetCount failed)";
    return m;
  }
  m.cuda_driver = cuda_version_text(v);
  for (int i = 0; i < n; ++i) {
    int dev = 0;
    char name[256] = {};
    if (get(&dev, i) != 0 || get_name(name, int(sizeof name) - 1, dev) != 0) {
      problem = "the CUDA driver did not name GPU " + std::to_string(i);
      return m;
    }
    bool seen = false;
    for (const std::string& g : m.gpus) seen = seen || g == name;
    if (!seen) m.gpus.emplace_back(name);
  }
  return m;
}

int probe_nccl_version(const void* caller) {
  int v = 0;
  Dl_info info{};
  if (caller != nullptr && dladdr(caller, &info) != 0 && info.dli_fname != nullptr) {
    if (void* h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) {
      const auto f = reinterpret_cast<NcclGetVersion>(dlsym(h, "ncclGetVersion"));
      const bool ok = f != nullptr && f(&v) == 0 && v > 0;
      dlclose(h);
      if (ok) return v;
    }
  }
  const auto f = reinterpret_cast<NcclGetVersion>(dlsym(RTLD_DEFAULT, "ncclGetVersion"));
  return f != nullptr && f(&v) == 0 && v > 0 ? v : 0;
}

}  // namespace arbench::tuner
