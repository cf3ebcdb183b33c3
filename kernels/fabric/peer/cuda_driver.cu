#include "kernels/fabric/peer/cuda_driver.hpp"

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/cuda/memops/driver_entry.hpp"

namespace arbench {
namespace {

struct Entry {
  CUresult (*GetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*GetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*DeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*DeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*MemGetAllocationGranularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags) =
      nullptr;
  CUresult (*MemCreate)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long) =
      nullptr;
  CUresult (*MemRelease)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*MemAddressReserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult (*MemAddressFree)(CUdeviceptr, size_t) = nullptr;
  CUresult (*MemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
  CUresult (*MemUnmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*MemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  CUresult (*MemExportToShareableHandle)(void*, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                                         unsigned long long) = nullptr;
  CUresult (*MemImportFromShareableHandle)(CUmemGenericAllocationHandle*, void*, CUmemAllocationHandleType) = nullptr;
};

template <class F>
std::string fetch(const char* symbol, F*& fn) {
  return driver_entry(symbol, fn);
}

CUmemAllocationProp allocation_prop(int device, bool exportable) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = exportable ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
  return prop;
}

class CudaDriver final : public PeerDriver {
 public:
  explicit CudaDriver(Entry e) : e_(e) {}

  std::string unsupported(int device, bool exportable) override {
    CUdevice dev = 0;
    if (CUresult r = e_.DeviceGet(&dev, device); r != CUDA_SUCCESS) return text("cuDeviceGet", r);
    int vmm = 0, fd = 0;
    if (CUresult r = e_.DeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
        r != CUDA_SUCCESS)
      return text("cuDeviceGetAttribute", r);
    if (!vmm) return "the driver reports no virtual memory management on it (cuMemCreate/cuMemMap)";
    if (!exportable) return {};
    if (CUresult r = e_.DeviceGetAttribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev);
        r != CUDA_SUCCESS)
      return text("cuDeviceGetAttribute", r);
    if (!fd) return "the driver cannot share its allocations between processes as POSIX file descriptors";
    return {};
  }

  std::string peer_refused(int user, int owner) override {
    int ok = 0;
    if (cudaError_t e = cudaDeviceCanAccessPeer(&ok, user, owner); e != cudaSuccess) {
      (void)cudaGetLastError();
      return std::string("cudaDeviceCanAccessPeer failed: ") + cudaGetErrorName(e);
    }
    return ok ? std::string() : "cudaDeviceCanAccessPeer says there is no peer-to-peer path";
  }

  std::string bus_id(int device) override {
    char id[32] = {};
    if (cudaDeviceGetPCIBusId(id, sizeof id, device) != cudaSuccess) {
      (void)cudaGetLastError();
      return {};
    }
    return id;
  }

  int device_of_bus_id(const std::string& id) override {
    int device = -1;
    if (id.empty() || cudaDeviceGetByPCIBusId(&device, id.c_str()) != cudaSuccess) {
      (void)cudaGetLastError();
      return -1;
    }
    return device;
  }

  std::size_t granularity(int device, bool exportable) override {
    const CUmemAllocationProp prop = allocation_prop(device, exportable);
    size_t g = 0;
    check(e_.MemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
          "cuMemGetAllocationGranularity on GPU " + std::to_string(device));
    return g;
  }

  MemHandle create(int device, std::size_t bytes, bool exportable) override {
    if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {  // the driver needs the GPU's context current
      (void)cudaGetLastError();
      throw CaseError("cudaSetDevice(" + std::to_string(device) + ") failed: " + cudaGetErrorName(e));
    }
    const CUmemAllocationProp prop = allocation_prop(device, exportable);
    CUmemGenericAllocationHandle h = 0;
    check(e_.MemCreate(&h, bytes, &prop, 0),
          "cuMemCreate of " + std::to_string(bytes) + " bytes on GPU " + std::to_string(device));
    return h;
  }

  Address reserve(std::size_t bytes, std::size_t alignment) override {
    CUdeviceptr va = 0;
    check(e_.MemAddressReserve(&va, bytes, alignment, 0, 0), "cuMemAddressReserve of " + std::to_string(bytes) + " bytes");
    return Address(va);
  }

  void map(Address va, std::size_t bytes, MemHandle h) override {
    check(e_.MemMap(CUdeviceptr(va), bytes, 0, h, 0), "cuMemMap of " + std::to_string(bytes) + " bytes");
  }

  std::string set_access(Address va, std::size_t bytes, int device) override {
    CUmemAccessDesc desc{};
    desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = device;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    const CUresult r = e_.MemSetAccess(CUdeviceptr(va), bytes, &desc, 1);
    return r == CUDA_SUCCESS ? std::string() : text("cuMemSetAccess", r);
  }

  void unmap(Address va, std::size_t bytes) noexcept override { (void)e_.MemUnmap(CUdeviceptr(va), bytes); }
  void free_address(Address va, std::size_t bytes) noexcept override {
    (void)e_.MemAddressFree(CUdeviceptr(va), bytes);
  }
  void release(MemHandle h) noexcept override { (void)e_.MemRelease(h); }

  int export_fd(MemHandle h) override {
    int fd = -1;
    check(e_.MemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
          "cuMemExportToShareableHandle");
    return fd;
  }

  MemHandle import_fd(int fd) override {
    CUmemGenericAllocationHandle h = 0;
    void* shareable = reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd));
    check(e_.MemImportFromShareableHandle(&h, shareable, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
          "cuMemImportFromShareableHandle");
    return h;
  }

 private:
  std::string text(const std::string& call, CUresult r) const {
    const char* name = nullptr;
    const char* what = nullptr;
    if (e_.GetErrorName(r, &name) != CUDA_SUCCESS || name == nullptr) name = "CUDA_ERROR_?";
    if (e_.GetErrorString(r, &what) != CUDA_SUCCESS || what == nullptr) what = "no description";
    return call + ": " + name + " (" + what + ")";
  }
  void check(CUresult r, const std::string& call) const {
    if (r != CUDA_SUCCESS) throw CaseError(text(call, r));
  }

  Entry e_;
};

}  // namespace

PeerDriver& cuda_driver() {
  static std::once_flag once;
  static std::string missing;
  static Entry e;
  std::call_once(once, [] {
    for (const std::string& m :
         {fetch("cuGetErrorName", e.GetErrorName), fetch("cuGetErrorString", e.GetErrorString),
          fetch("cuDeviceGet", e.DeviceGet), fetch("cuDeviceGetAttribute", e.DeviceGetAttribute),
          fetch("cuMemGetAllocationGranularity", e.MemGetAllocationGranularity), fetch("cuMemCreate", e.MemCreate),
          fetch("cuMemRelease", e.MemRelease), fetch("cuMemAddressReserve", e.MemAddressReserve),
          fetch("cuMemAddressFree", e.MemAddressFree), fetch("cuMemMap", e.MemMap), fetch("cuMemUnmap", e.MemUnmap),
          fetch("cuMemSetAccess", e.MemSetAccess),
          fetch("cuMemExportToShareableHandle", e.MemExportToShareableHandle),
          fetch("cuMemImportFromShareableHandle", e.MemImportFromShareableHandle)})
      if (!m.empty()) missing += (missing.empty() ? "" : ", ") + m;
  });
  if (!missing.empty())
    throw EnvironmentError("the CUDA driver lacks the virtual memory API the cuda provider maps peer memory with "
                           "(missing: " + missing + "). Install an NVIDIA driver for CUDA 12 or newer, or use "
                           "--symm-mem nccl");
  static CudaDriver driver(e);
  return driver;
}

}  // namespace arbench
