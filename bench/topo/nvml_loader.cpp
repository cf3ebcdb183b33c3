// NVML through dlopen. The few entry points used are declared here by their C ABI (NVML
// returns an int status, 0 = success; a device is an opaque pointer).
#include <dlfcn.h>
#include <unistd.h>

#include <vector>

#include "topo/nvml_loader.hpp"

namespace arbench::topo {
namespace {

using NvmlDevice = void*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlInsufficientSize = 7;
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2;     // nvmlClockType_t
constexpr int kNvmlTemperatureGpu = 0;                 // nvmlTemperatureSensors_t
constexpr int kNvmlPolicyPower = 0, kNvmlPolicyThermal = 1;  // nvmlPerfPolicyType_t

struct NvmlViolationTime {  // nvmlViolationTime_t
  unsigned long long reference_time, violation_time;
};
struct NvmlThreeSizes {  // nvmlBAR1Memory_t (bar1Total, bar1Free, bar1Used) and nvmlMemory_t (total, free, used)
  unsigned long long total, free, used;
};
struct NvmlProcessInfo {  // nvmlProcessInfo_t as the _v2/_v3 process queries fill it
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id, compute_instance_id;
};

template <class F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

// NVML reports the generation, sysfs the speed: map back so both fill one PcieLink.
std::optional<double> speed_of_generation(unsigned gen) {
  constexpr double kSpeeds[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  if (gen < 1 || gen > 6) return std::nullopt;
  return kSpeeds[gen - 1];
}

// The `total` of a three-size query (BAR1, memory) of the GPU at `bus`; nullopt when NVML cannot say.
std::optional<unsigned long long> total_of(int (*by_bus)(const char*, NvmlDevice*),
                                           int (*query)(NvmlDevice, NvmlThreeSizes*), const std::string& bus) {
  NvmlDevice dev = nullptr;
  NvmlThreeSizes m{};
  if (!by_bus || !query || by_bus(bus.c_str(), &dev) != kNvmlSuccess || query(dev, &m) != kNvmlSuccess)
    return std::nullopt;
  return m.total;
}

}  // namespace

struct Nvml::Api {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*by_bus_id)(const char*, NvmlDevice*) = nullptr;
  int (*curr_gen)(NvmlDevice, unsigned*) = nullptr;
  int (*max_gen)(NvmlDevice, unsigned*) = nullptr;
  int (*curr_width)(NvmlDevice, unsigned*) = nullptr;
  int (*max_width)(NvmlDevice, unsigned*) = nullptr;
  int (*p2p_status)(NvmlDevice, NvmlDevice, int, int*) = nullptr;
  int (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  int (*event_reasons)(NvmlDevice, unsigned long long*) = nullptr;
  int (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  int (*power_mw)(NvmlDevice, unsigned*) = nullptr;
  int (*pstate)(NvmlDevice, int*) = nullptr;
  int (*violation)(NvmlDevice, int, NvmlViolationTime*) = nullptr;
  int (*processes)(NvmlDevice, unsigned*, NvmlProcessInfo*) = nullptr;
  int (*persistence)(NvmlDevice, int*) = nullptr;
  int (*bar1)(NvmlDevice, NvmlThreeSizes*) = nullptr;
  int (*memory)(NvmlDevice, NvmlThreeSizes*) = nullptr;
};

std::unique_ptr<Nvml> Nvml::load(std::string* why) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    if (why) *why = "libnvidia-ml.so.1 not found (NVML is optional)";
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  api->init = symbol<int (*)()>(lib, "nvmlInit_v2");
  api->shutdown = symbol<int (*)()>(lib, "nvmlShutdown");
  api->driver_version = symbol<int (*)(char*, unsigned)>(lib, "nvmlSystemGetDriverVersion");
  api->by_bus_id = symbol<int (*)(const char*, NvmlDevice*)>(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  api->curr_gen = symbol<int (*)(NvmlDevice, unsigned*)>(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
  api->max_gen = symbol<int (*)(NvmlDevice, unsigned*)>(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
  api->curr_width = symbol<int (*)(NvmlDevice, unsigned*)>(lib, "nvmlDeviceGetCurrPcieLinkWidth");
  api->max_width = symbol<int (*)(NvmlDevice, unsigned*)>(lib, "nvmlDeviceGetMaxPcieLinkWidth");
  api->p2p_status = symbol<int (*)(NvmlDevice, NvmlDevice, int, int*)>(lib, "nvmlDeviceGetP2PStatus");
  api->clock = symbol<int (*)(NvmlDevice, int, unsigned*)>(lib, "nvmlDeviceGetClockInfo");
  // Renamed in newer drivers; older ones only have the Throttle spelling (same ABI).
  api->event_reasons = symbol<int (*)(NvmlDevice, unsigned long long*)>(lib, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!api->event_reasons)
    api->event_reasons =
        symbol<int (*)(NvmlDevice, unsigned long long*)>(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  api->temperature = symbol<int (*)(NvmlDevice, int, unsigned*)>(lib, "nvmlDeviceGetTemperature");
  api->power_mw = symbol<int (*)(NvmlDevice, unsigned*)>(lib, "nvmlDeviceGetPowerUsage");
  api->pstate = symbol<int (*)(NvmlDevice, int*)>(lib, "nvmlDeviceGetPerformanceState");
  api->violation = symbol<int (*)(NvmlDevice, int, NvmlViolationTime*)>(lib, "nvmlDeviceGetViolationStatus");
  api->processes = symbol<int (*)(NvmlDevice, unsigned*, NvmlProcessInfo*)>(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!api->processes)
    api->processes =
        symbol<int (*)(NvmlDevice, unsigned*, NvmlProcessInfo*)>(lib, "nvmlDeviceGetComputeRunningProcesses_v2");
  api->persistence = symbol<int (*)(NvmlDevice, int*)>(lib, "nvmlDeviceGetPersistenceMode");
  api->bar1 = symbol<int (*)(NvmlDevice, NvmlThreeSizes*)>(lib, "nvmlDeviceGetBAR1MemoryInfo");
  api->memory = symbol<int (*)(NvmlDevice, NvmlThreeSizes*)>(lib, "nvmlDeviceGetMemoryInfo");
  if (!api->init || !api->shutdown || api->init() != kNvmlSuccess) {
    if (why) *why = "nvmlInit_v2 failed or is missing in libnvidia-ml.so.1";
    dlclose(lib);
    return nullptr;
  }
  std::unique_ptr<Nvml> nvml(new Nvml());
  nvml->lib_ = lib;
  nvml->api_ = std::move(api);
  return nvml;
}

Nvml::~Nvml() {
  if (api_ && api_->shutdown) api_->shutdown();
  if (lib_) dlclose(lib_);
}

std::optional<std::string> Nvml::driver_version() const {
  char buf[96] = {};
  if (!api_->driver_version || api_->driver_version(buf, sizeof buf) != kNvmlSuccess) return std::nullopt;
  return std::string(buf);
}

std::optional<PcieLink> Nvml::pcie_link(const std::string& bus_id) const {
  NvmlDevice dev = nullptr;
  if (!api_->by_bus_id || api_->by_bus_id(bus_id.c_str(), &dev) != kNvmlSuccess) return std::nullopt;
  PcieLink link;
  unsigned v = 0;
  if (api_->curr_gen && api_->curr_gen(dev, &v) == kNvmlSuccess) link.current.speed_gts = speed_of_generation(v);
  if (api_->max_gen && api_->max_gen(dev, &v) == kNvmlSuccess) link.max.speed_gts = speed_of_generation(v);
  if (api_->curr_width && api_->curr_width(dev, &v) == kNvmlSuccess && v > 0) link.current.width = static_cast<int>(v);
  if (api_->max_width && api_->max_width(dev, &v) == kNvmlSuccess && v > 0) link.max.width = static_cast<int>(v);
  return link;
}

std::optional<bool> Nvml::nvlink_p2p(const std::string& bus_a, const std::string& bus_b) const {
  constexpr int kCapsIndexNvlink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
  constexpr int kP2pStatusOk = 0;      // NVML_P2P_STATUS_OK
  const auto status = p2p_status(bus_a, bus_b, kCapsIndexNvlink);
  if (!status) return std::nullopt;
  return *status == kP2pStatusOk;
}

std::optional<int> Nvml::p2p_status(const std::string& bus_a, const std::string& bus_b, int caps_index) const {
  NvmlDevice a = nullptr, b = nullptr;
  int status = -1;
  if (!api_->by_bus_id || !api_->p2p_status || api_->by_bus_id(bus_a.c_str(), &a) != kNvmlSuccess ||
      api_->by_bus_id(bus_b.c_str(), &b) != kNvmlSuccess || api_->p2p_status(a, b, caps_index, &status) != kNvmlSuccess)
    return std::nullopt;
  return status;
}

std::optional<bool> Nvml::persistence_mode(const std::string& bus_id) const {
  NvmlDevice dev = nullptr;
  int state = 0;  // nvmlEnableState_t: 0 disabled, 1 enabled
  if (!api_->by_bus_id || !api_->persistence || api_->by_bus_id(bus_id.c_str(), &dev) != kNvmlSuccess ||
      api_->persistence(dev, &state) != kNvmlSuccess)
    return std::nullopt;
  return state == 1;
}

std::optional<unsigned long long> Nvml::bar1_bytes(const std::string& bus_id) const {
  return total_of(api_->by_bus_id, api_->bar1, bus_id);
}

std::optional<unsigned long long> Nvml::memory_bytes(const std::string& bus_id) const {
  return total_of(api_->by_bus_id, api_->memory, bus_id);
}

std::optional<GpuSnapshot> Nvml::snapshot(const std::string& bus_id) const {
  NvmlDevice dev = nullptr;
  if (!api_->by_bus_id || api_->by_bus_id(bus_id.c_str(), &dev) != kNvmlSuccess) return std::nullopt;
  GpuSnapshot s;
  unsigned u = 0;
  if (api_->clock && api_->clock(dev, kNvmlClockSm, &u) == kNvmlSuccess) s.sm_clock_mhz = u;
  if (api_->clock && api_->clock(dev, kNvmlClockMem, &u) == kNvmlSuccess) s.mem_clock_mhz = u;
  unsigned long long reasons = 0;
  if (api_->event_reasons && api_->event_reasons(dev, &reasons) == kNvmlSuccess) s.clock_event_reasons = reasons;
  if (api_->temperature && api_->temperature(dev, kNvmlTemperatureGpu, &u) == kNvmlSuccess) s.temperature_c = u;
  if (api_->power_mw && api_->power_mw(dev, &u) == kNvmlSuccess) s.power_w = u / 1000.0;
  int ps = 0;
  if (api_->pstate && api_->pstate(dev, &ps) == kNvmlSuccess && ps >= 0 && ps < 32) s.pstate = unsigned(ps);
  if (auto link = pcie_link(bus_id)) {
    s.pcie_gen = link->current.generation();
    s.pcie_max_gen = link->max.generation();
    s.pcie_width = link->current.width;
    s.pcie_max_width = link->max.width;
  }
  NvmlViolationTime v{};
  if (api_->violation && api_->violation(dev, kNvmlPolicyPower, &v) == kNvmlSuccess) s.power_violation_ns = v.violation_time;
  if (api_->violation && api_->violation(dev, kNvmlPolicyThermal, &v) == kNvmlSuccess)
    s.thermal_violation_ns = v.violation_time;
  if (api_->processes) {
    // Ask for the count first, then the list (a process may start in between: retry once).
    for (int attempt = 0; attempt < 2; ++attempt) {
      unsigned count = 0;
      int rc = api_->processes(dev, &count, nullptr);
      if (rc != kNvmlSuccess && rc != kNvmlInsufficientSize) break;
      std::vector<NvmlProcessInfo> procs(count + 4);
      count = unsigned(procs.size());
      rc = api_->processes(dev, &count, procs.data());
      if (rc == kNvmlInsufficientSize) continue;
      if (rc != kNvmlSuccess) break;
      int others = 0;
      for (unsigned i = 0; i < count; ++i) others += procs[i].pid != unsigned(::getpid()) ? 1 : 0;
      s.other_processes = others;
      break;
    }
  }
  return s;
}

}  // namespace arbench::topo
