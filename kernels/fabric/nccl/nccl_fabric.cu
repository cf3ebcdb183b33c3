#include "kernels/fabric/nccl/nccl_fabric.hpp"

#include "arbench/core/cuda_check.hpp"
#include "kernels/fabric/nccl/nccl_group.hpp"
#include "kernels/fabric/nccl/nccl_setup.hpp"
#include "kernels/fabric/nccl/nccl_version.hpp"
#include "kernels/fabric/nccl/nccl_windows.hpp"

namespace arbench {
namespace {

std::vector<int> first_devices(int world) {
  std::vector<int> d(world);
  for (int i = 0; i < world; ++i) d[i] = i;
  return d;
}

}  // namespace

NcclFabric::NcclFabric(int world, double timeout_s, std::map<std::string, std::string> env)
    : CudaFabric(first_devices(world), timeout_s), api_(NcclApi::get()), env_(std::move(env)) {
  comms_.assign(world, nullptr);
  const std::vector<int> devs = first_devices(world);
  {
    ScopedEnv scoped(env_);
    ARB_NCCL_CHECK(api_, CommInitAll(comms_.data(), world, devs.data()));
  }
  probe_symmetric();
  std::unique_ptr<RankBuffers> flags;
  std::string why = symmetric_reason_;
  if (why.empty()) {
    try {
      flags = alloc(StartGate::kGateFlagWords * sizeof(std::uint32_t), Placement::symmetric);
    } catch (const CaseError& e) {  // e.g. a window without peer pointers
      symmetric_reason_ = why = e.what();
    }
  }
  build_gate(std::move(flags), why);
}

NcclFabric::~NcclFabric() {
  release_gate();  // its flags are windows of comms_
  if (aborted()) return;  // ncclCommAbort freed the communicators
  const bool idle = quiesce();
  for (auto c : comms_)
    if (c) idle ? api_.CommDestroy(c) : api_.CommAbort(c);
}

void NcclFabric::abort() {
  if (aborted()) return;
  CudaFabric::abort();
  for (auto c : comms_)
    if (c) api_.CommAbort(c);
}

std::string NcclFabric::describe() const {
  std::string s = std::to_string(world()) + " GPUs, NCCL " + NcclApi::version_or_reason();
  for (const auto& [k, v] : env_) s += " " + k + "=" + v;
  return s + "; start gate: " + gate_description();
}

void NcclFabric::probe_symmetric() {
  if (std::string why = nccl_device_api_mismatch(NCCL_VERSION_CODE, api_.version); !why.empty()) {
    symmetric_reason_ = why;
    return;
  }
  for (int a = 0; a < world(); ++a)
    for (int b = 0; b < world(); ++b) {
      int ok = 1;
      if (a != b && cudaDeviceCanAccessPeer(&ok, a, b) == cudaSuccess && !ok) {
        symmetric_reason_ = "GPU " + std::to_string(a) + " cannot access GPU " + std::to_string(b) +
                            " peer-to-peer (cudaDeviceCanAccessPeer), so NCCL symmetric memory is unavailable";
        return;
      }
    }
  std::vector<ncclDevComm_t> dev(world());
  const ncclDevCommRequirements_t reqs = no_requirements();
  const ncclResult_t r = grouped_setup(
      world(), ncclSuccess, [&] { return api_.GroupStart(); },
      [&](int i) { return api_.DevCommCreate(comms_[i], &reqs, &dev[i]); }, [&] { abandon_group(api_); },
      [&] { return api_.GroupEnd(); });
  if (r != ncclSuccess) {
    const char* last = api_.GetLastError(nullptr);
    symmetric_reason_ = std::string("ncclDevCommCreate failed: ") + api_.GetErrorString(r) +
                        (last && *last ? std::string(" (") + last + ")" : std::string());
    return;  // symmetric memory stays off: some communicators may hold a queued creation
  }
  for (int i = 0; i < world(); ++i) api_.DevCommDestroy(comms_[i], &dev[i]);
}

std::unique_ptr<RankBuffers> NcclFabric::alloc(std::size_t bytes, Placement placement) {
  if (placement == Placement::local) return std::make_unique<DeviceBuffers>(*this, bytes, false);
  if (!symmetric_reason_.empty()) throw EnvironmentError("symmetric memory unavailable: " + symmetric_reason_);
  return std::make_unique<NcclWindows>(*this, api_, comms_, bytes);
}

void NcclFabric::begin_op_group() { ARB_NCCL_CHECK(api_, GroupStart()); }
void NcclFabric::end_op_group() { ARB_NCCL_CHECK(api_, GroupEnd()); }

}  // namespace arbench
