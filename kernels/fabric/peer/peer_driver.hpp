// PeerDriver: the CUDA driver calls of the cuda provider (cuda_peer_provider.hpp), behind an
// interface so that the provider's logic (what is created, mapped, shared and released, in which
// order, and what a refusal names) runs on CPUs in the host tests, on a fake driver whose
// "device memory" is memfd-backed host memory (tests/host/fabric/fake_peer_driver.hpp). The real
// one is cuda_driver.hpp (entry points from cudaGetDriverEntryPointByVersion: no libcuda link).
//
// Failures of the driver itself (out of memory, a bad handle) throw CaseError with the call and
// the driver's error; set_access() and peer_refused() return their refusal as text instead, so
// the provider can say which pair of GPUs refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace arbench {

using MemHandle = std::uint64_t;  // CUmemGenericAllocationHandle
using Address = std::uintptr_t;   // CUdeviceptr: a virtual address every GPU of the process shares

class PeerDriver {
 public:
  virtual ~PeerDriver() = default;
  // Empty when `device` can hold arena memory (virtual memory management; with `exportable`,
  // allocations exported as POSIX file descriptors); else why not.
  virtual std::string unsupported(int device, bool exportable) = 0;
  // Empty when a kernel on `user` may reach memory of `owner` (peer-to-peer); else why not.
  virtual std::string peer_refused(int user, int owner) = 0;
  // What names `device` in every process of the node (its PCI bus id), and this process's ordinal
  // of such a name (-1 where this process does not see that GPU, e.g. CUDA_VISIBLE_DEVICES).
  virtual std::string bus_id(int device) = 0;
  virtual int device_of_bus_id(const std::string& id) = 0;
  // The allocation granularity of `device`: sizes and addresses are multiples of it.
  virtual std::size_t granularity(int device, bool exportable) = 0;
  // Physical memory of `bytes` on `device`.
  virtual MemHandle create(int device, std::size_t bytes, bool exportable) = 0;
  // A range of `bytes` of virtual addresses, aligned to `alignment`, with nothing mapped.
  virtual Address reserve(std::size_t bytes, std::size_t alignment) = 0;
  virtual void map(Address va, std::size_t bytes, MemHandle h) = 0;
  // Lets `device` read and write [va, va + bytes); empty, or the driver's refusal.
  virtual std::string set_access(Address va, std::size_t bytes, int device) = 0;
  virtual void unmap(Address va, std::size_t bytes) noexcept = 0;
  virtual void free_address(Address va, std::size_t bytes) noexcept = 0;
  virtual void release(MemHandle h) noexcept = 0;
  // A new descriptor for `h` (the caller closes it), and the handle of a peer's descriptor.
  virtual int export_fd(MemHandle h) = 0;
  virtual MemHandle import_fd(int fd) = 0;
};

}  // namespace arbench
