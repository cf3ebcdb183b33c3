// libarbench-fake-nccl.so: a stand-in for an engine's libnccl.so.2 (another NCCL than the system's,
// here "2.29.7"), exporting the entry points arbench's loader looks up. Only ncclGetVersion
// answers; the rest fail, and the loader tests never call them. Built as several NCCLs
// (tests/CMakeLists.txt): FAKE_NCCL_VERSION sets the version, and each FAKE_NCCL_WITHOUT_* leaves
// out what that NCCL lacks, as the real releases do (kernels/fabric/nccl/nccl_features.hpp: ncclMemAlloc
// from 2.19, the windows from 2.27, the device API from 2.28, ncclCommInitRankConfig from 2.14).
#ifndef FAKE_NCCL_VERSION
#define FAKE_NCCL_VERSION 22907
#endif
#define FAKE_NCCL_FN(name) \
  extern "C" __attribute__((visibility("default"))) int name() { return 1; }

extern "C" __attribute__((visibility("default"))) int ncclGetVersion(int* version) {
  *version = FAKE_NCCL_VERSION;
  return 0;
}
extern "C" __attribute__((visibility("default"))) const char* ncclGetErrorString(int) { return "fake NCCL"; }
extern "C" __attribute__((visibility("default"))) const char* ncclGetLastError(void*) { return ""; }
FAKE_NCCL_FN(ncclCommInitAll)
FAKE_NCCL_FN(ncclCommDestroy)
FAKE_NCCL_FN(ncclCommAbort)
FAKE_NCCL_FN(ncclGetUniqueId)
#ifndef FAKE_NCCL_WITHOUT_INIT_CONFIG
FAKE_NCCL_FN(ncclCommInitRankConfig)
#endif
FAKE_NCCL_FN(ncclCommGetAsyncError)
FAKE_NCCL_FN(ncclGroupStart)
FAKE_NCCL_FN(ncclGroupEnd)
FAKE_NCCL_FN(ncclAllReduce)
#ifndef FAKE_NCCL_WITHOUT_MEMALLOC
FAKE_NCCL_FN(ncclMemAlloc)
FAKE_NCCL_FN(ncclMemFree)
#endif
#ifndef FAKE_NCCL_WITHOUT_WINDOWS
FAKE_NCCL_FN(ncclCommWindowRegister)
FAKE_NCCL_FN(ncclCommWindowDeregister)
#endif
#ifndef FAKE_NCCL_WITHOUT_DEVCOMM
FAKE_NCCL_FN(ncclDevCommCreate)
FAKE_NCCL_FN(ncclDevCommDestroy)
#endif
