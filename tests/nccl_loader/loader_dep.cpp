// libarbench-loader-dep.so: the dependency of libarbench-needs-dep.so (not_nccl.cpp).
extern "C" __attribute__((visibility("default"))) int arbench_loader_dep() { return 7; }
