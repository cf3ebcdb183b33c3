// The stand-ins, the logger and the test table of tuner_plugin_fixture.hpp.
#include "tests/tuner/tuner_plugin_fixture.hpp"

#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace arbench::tuner_test {

int g_nccl_version = 22809;
int g_cuda_driver = 13000;
std::vector<std::string> g_gpus = {"NVIDIA RTX PRO 6000 Blackwell Server Edition"};
std::vector<LogLine> g_log;

}  // namespace arbench::tuner_test

using arbench::tuner_test::g_cuda_driver;
using arbench::tuner_test::g_gpus;
using arbench::tuner_test::g_nccl_version;

// The stand-ins (exported: the target has ENABLE_EXPORTS), found by the plugin with dlsym.
extern "C" {
__attribute__((visibility("default"))) int ncclGetVersion(int* v) {
  if (g_nccl_version == 0) return 1;
  *v = g_nccl_version;
  return 0;
}
__attribute__((visibility("default"))) int cuInit(unsigned int) { return 0; }
__attribute__((visibility("default"))) int cuDriverGetVersion(int* v) {
  *v = g_cuda_driver;
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGetCount(int* n) {
  *n = int(g_gpus.size());
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGet(int* dev, int i) {
  *dev = i;
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGetName(char* name, int len, int dev) {
  std::snprintf(name, std::size_t(len), "%s", g_gpus.at(std::size_t(dev)).c_str());
  return 0;
}
}

namespace arbench::tuner_test {

void logger(nccl_abi::LogLevel level, unsigned long, const char*, int, const char* fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  g_log.push_back({int(level), buf});
}

std::string this_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream s;
  s << in.rdbuf();
  return tuner::cpu_model_from_cpuinfo(s.str());
}

std::string good_table(const std::string& nccl, const std::string& cpu, const std::string& gpu) {
  return "# a test table\n"
         "arbench-nccl-tuner-table 1\n"
         "source tests/fixture.json\n"
         "fingerprint 0123456789abcdef\n"
         "nccl " + nccl + "\n"
         "machine cpu " + cpu + "\n"
         "machine gpu " + gpu + "\n"
         "machine cuda_driver 13.0\n"
         "allreduce nranks=8 nnodes=1 min_bytes=0 max_bytes=65536 algo=ring proto=ll channels=4\n"
         "# the crossover at 64 KiB\n"
         "allreduce nranks=8 nnodes=1 min_bytes=65537 max_bytes=1048576 algo=ring proto=simple channels=8\n"
         "allreduce nranks=8 nnodes=1 min_bytes=1048577 max_bytes=8388608 algo=tree proto=simple channels=0\n"
         "allreduce nranks=2 nnodes=1 min_bytes=0 max_bytes=1048576 algo=ring proto=ll channels=2\n";
}

// NCCL's flat cost table for an all-reduce on PCIe: tree and ring with LL and Simple valid, LL128
}  // namespace arbench::tuner_test
