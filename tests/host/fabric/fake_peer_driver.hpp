// FakePeerDriver: the cuda provider's driver seam (kernels/fabric/peer/peer_driver.hpp) on CPUs.
// "Device memory" is a memfd (named after its GPU, so an imported descriptor still says whose it
// is), an address range is an mmap reservation, mapping is mmap(MAP_SHARED | MAP_FIXED): so a
// mapping of a peer's chunk really is the peer's memory, in one process or across processes
// (descriptors passed over the Unix-domain socket). Knobs refuse pairs or devices, or fail
// allocations; every call is recorded, and live objects counted, so tests see what was released
// and in which order.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arbench/core/errors.hpp"
#include "kernels/fabric/peer/peer_driver.hpp"

namespace arbench::testing {

class FakePeerDriver final : public PeerDriver {
 public:
  explicit FakePeerDriver(std::size_t granularity = 64 * 1024) : granularity_(granularity) {}
  ~FakePeerDriver() override {
    for (auto& [h, a] : allocations_) ::close(a.fd);
  }

  // Knobs.
  std::set<std::pair<int, int>> no_peer_path;    // (user, owner) GPUs: peer_refused() says so
  std::set<std::pair<int, int>> access_refused;  // (user, owner) GPUs: set_access() refuses
  std::set<int> no_vmm, no_fd_export;            // GPUs without the virtual memory API / fd handles
  int creates_left = -1;                         // >= 0: create() fails once this many succeeded

  // What happened: "create 1 65536", "reserve 65536", "map", "access 2 on 1", "unmap", "free",
  // "release", "export", "import 3" (the imported chunk's GPU).
  std::vector<std::string> calls;
  int live_allocations() const { return int(allocations_.size()); }
  int live_reservations() const { return int(reservations_.size()); }
  int live_mappings() const { return int(mapped_.size()); }

  std::string unsupported(int device, bool exportable) override {
    if (no_vmm.count(device)) return "the fake driver has no virtual memory management on GPU " + std::to_string(device);
    if (exportable && no_fd_export.count(device)) return "the fake driver cannot export GPU " + std::to_string(device);
    return {};
  }
  std::set<int> invisible;  // GPUs this process does not see (device_of_bus_id says -1)
  std::string bus_id(int device) override { return "0000:" + std::to_string(10 + device) + ":00.0"; }
  int device_of_bus_id(const std::string& id) override {
    const int d = std::stoi(id.substr(5)) - 10;
    return invisible.count(d) ? -1 : d;
  }
  std::string peer_refused(int user, int owner) override {
    return no_peer_path.count({user, owner}) ? "no peer-to-peer path (fake)" : std::string();
  }
  std::size_t granularity(int, bool) override { return granularity_; }

  MemHandle create(int device, std::size_t bytes, bool) override {
    calls.push_back("create " + std::to_string(device) + " " + std::to_string(bytes));
    if (creates_left == 0) throw CaseError("cuMemCreate of " + std::to_string(bytes) + " bytes: out of memory (fake)");
    if (creates_left > 0) --creates_left;
    const std::string name = "arbench-fake.gpu" + std::to_string(device);
    const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
    if (fd < 0 || ::ftruncate(fd, off_t(bytes)) != 0) throw CaseError("memfd_create failed");
    return add(fd, device, bytes);
  }

  Address reserve(std::size_t bytes, std::size_t alignment) override {
    calls.push_back("reserve " + std::to_string(bytes));
    const std::size_t span = bytes + alignment;
    void* p = ::mmap(nullptr, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw CaseError("reserve failed");
    const Address start = Address(p), aligned = (start + alignment - 1) / alignment * alignment;
    if (aligned > start) ::munmap(p, aligned - start);
    if (start + span > aligned + bytes) ::munmap(reinterpret_cast<void*>(aligned + bytes), start + span - aligned - bytes);
    reservations_[aligned] = bytes;
    return aligned;
  }

  void map(Address va, std::size_t bytes, MemHandle h) override {
    calls.push_back("map");
    const Allocation& a = allocations_.at(h);
    if (::mmap(reinterpret_cast<void*>(va), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, a.fd, 0) ==
        MAP_FAILED)
      throw CaseError("map failed");
    mapped_[va] = a.device;
  }

  std::string set_access(Address va, std::size_t, int device) override {
    const int owner = mapped_.at(va);
    calls.push_back("access " + std::to_string(device) + " on " + std::to_string(owner));
    if (access_refused.count({device, owner})) return "cuMemSetAccess: CUDA_ERROR_INVALID_DEVICE (fake refusal)";
    return {};
  }

  void unmap(Address va, std::size_t bytes) noexcept override {
    calls.push_back("unmap");
    ::mmap(reinterpret_cast<void*>(va), bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
           0);
    mapped_.erase(va);
  }
  void free_address(Address va, std::size_t bytes) noexcept override {
    calls.push_back("free");
    ::munmap(reinterpret_cast<void*>(va), bytes);
    reservations_.erase(va);
  }
  void release(MemHandle h) noexcept override {
    calls.push_back("release");
    auto it = allocations_.find(h);
    if (it == allocations_.end()) return;
    ::close(it->second.fd);
    allocations_.erase(it);
  }

  int export_fd(MemHandle h) override {
    calls.push_back("export");
    return ::dup(allocations_.at(h).fd);
  }
  MemHandle import_fd(int fd) override {
    const int mine = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine < 0) throw CaseError("import of a bad descriptor");
    // The memfd's name says whose GPU it is: /proc/self/fd/N -> "/memfd:arbench-fake.gpu3 (deleted)".
    char link[256] = {};
    const std::string path = "/proc/self/fd/" + std::to_string(mine);
    const ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
    const std::string target = n > 0 ? std::string(link, std::size_t(n)) : std::string();
    const auto at = target.find(".gpu");
    const int device = at == std::string::npos ? -1 : std::atoi(target.c_str() + at + 4);
    calls.push_back("import " + std::to_string(device));
    return add(mine, device, std::size_t(::lseek(mine, 0, SEEK_END)));
  }

 private:
  struct Allocation {
    int fd = -1;
    int device = -1;
    std::size_t bytes = 0;
  };
  MemHandle add(int fd, int device, std::size_t bytes) {
    allocations_[++next_] = {fd, device, bytes};
    return next_;
  }

  std::size_t granularity_;
  MemHandle next_ = 0;
  std::map<MemHandle, Allocation> allocations_;
  std::map<Address, std::size_t> reservations_;
  std::map<Address, int> mapped_;  // address -> the GPU whose memory is mapped there
};

}  // namespace arbench::testing
