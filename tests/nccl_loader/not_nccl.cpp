// libarbench-not-nccl.so: a shared library that is not NCCL (no ncclGetVersion), for the loader's
// refusal; with ARBENCH_NEEDS_DEP it also needs libarbench-loader-dep.so, which is on no loader path
// (built without an RPATH), for the refusal of a library the loader cannot load.
#ifdef ARBENCH_NEEDS_DEP
extern "C" int arbench_loader_dep();
extern "C" __attribute__((visibility("default"))) int arbench_not_nccl() { return arbench_loader_dep(); }
#else
extern "C" __attribute__((visibility("default"))) int arbench_not_nccl() { return 7; }
#endif
