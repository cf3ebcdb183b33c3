// NVML through dlopen. The few entry points used are declared here by their C ABI (NVML
// returns an int status, 0 = success; a device is an opaque pointer).
#include <dlfcn.h>

#include "topo/nvml_loader.hpp"

namespace arbench::topo {
namespace {

using NvmlDevice = void*;
constexpr int kNvmlSuccess = 0;

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
  NvmlDevice a = nullptr, b = nullptr;
  int status = -1;
  if (!api_->by_bus_id || !api_->p2p_status || api_->by_bus_id(bus_a.c_str(), &a) != kNvmlSuccess ||
      api_->by_bus_id(bus_b.c_str(), &b) != kNvmlSuccess || api_->p2p_status(a, b, kCapsIndexNvlink, &status) != kNvmlSuccess)
    return std::nullopt;
  return status == kP2pStatusOk;
}

}  // namespace arbench::topo
