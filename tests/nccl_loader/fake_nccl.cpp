// libarbench-fake-nccl.so: a stand-in for an engine's libnccl.so.2 (another NCCL than the system's,
// here "2.29.7"), exporting every entry point arbench's loader looks up. Only ncclGetVersion
// answers; the rest fail, and the loader test never calls them. Built three times
// (tests/CMakeLists.txt): as it is; as an NCCL too old (FAKE_NCCL_VERSION 22703, "2.27.3"); and as an
// NCCL-API library without ncclDevCommCreate (FAKE_NCCL_WITHOUT_DEVCOMM).
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
FAKE_NCCL_FN(ncclCommInitRankConfig)
FAKE_NCCL_FN(ncclCommGetAsyncError)
FAKE_NCCL_FN(ncclGroupStart)
FAKE_NCCL_FN(ncclGroupEnd)
FAKE_NCCL_FN(ncclAllReduce)
FAKE_NCCL_FN(ncclMemAlloc)
FAKE_NCCL_FN(ncclMemFree)
FAKE_NCCL_FN(ncclCommWindowRegister)
FAKE_NCCL_FN(ncclCommWindowDeregister)
#ifndef FAKE_NCCL_WITHOUT_DEVCOMM
FAKE_NCCL_FN(ncclDevCommCreate)
#endif
FAKE_NCCL_FN(ncclDevCommDestroy)
