#include "kernels/fabric/host/shm_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

std::string errno_text(int e) { return std::string(std::strerror(e)) + " (errno " + std::to_string(e) + ")"; }

std::string mib(std::size_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

// Free bytes in the file system behind shm_open (/dev/shm on Linux), for the error message.
std::string dev_shm_free() {
  struct statvfs s {};
  if (statvfs("/dev/shm", &s) != 0) return "unknown";
  return mib(static_cast<std::size_t>(s.f_bavail) * s.f_frsize);
}

}  // namespace

ShmSegment::ShmSegment(World& world, std::size_t reserve_bytes) : world_(world), reserve_(reserve_bytes) {
  if (world.layout().nodes != 1)
    throw EnvironmentError("shared memory spans one node, and this run has " + std::to_string(world.layout().nodes) +
                           " nodes");
  creator_ = world.layout().local_rank == 0;
  std::string failure;
  if (creator_) {
    // Unique to this run: the creator's pid, plus a counter for a second segment in one process.
    static std::atomic<int> serial{0};
    name_ = "/arbench." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    fd_ = shm_open(name_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd_ < 0) failure = "shm_open(" + name_ + ", O_CREAT|O_EXCL) failed: " + errno_text(errno);
  }
  std::string agreed = first_failure(world_, failure, "creating the shared-memory segment");
  if (!agreed.empty()) {
    if (fd_ >= 0) shm_unlink(name_.c_str());
    throw EnvironmentError("host backend, several processes: " + agreed +
                           ". Check that /dev/shm is mounted and writable");
  }
  world_.broadcast(name_, 0, "sharing the segment's name");
  if (!creator_) {
    fd_ = shm_open(name_.c_str(), O_RDWR, 0600);
    if (fd_ < 0) failure = "shm_open(" + name_ + ") failed: " + errno_text(errno);
  }
  if (failure.empty()) {
    void* p = mmap(nullptr, reserve_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd_, 0);
    if (p == MAP_FAILED)
      failure = "mmap of " + mib(reserve_) + " of " + name_ + " failed: " + errno_text(errno);
    else
      base_ = static_cast<std::uint8_t*>(p);
  }
  // Everyone has opened it (or failed to): the name is no longer needed.
  agreed = first_failure(world_, failure, "mapping the shared-memory segment");
  if (creator_) shm_unlink(name_.c_str());
  if (!agreed.empty()) {
    release();
    throw EnvironmentError("host backend, several processes: " + agreed);
  }
}

ShmSegment::~ShmSegment() { release(); }

void ShmSegment::release() {
  if (base_ != nullptr) munmap(base_, reserve_);
  if (fd_ >= 0) close(fd_);
  base_ = nullptr;
  fd_ = -1;
}

void ShmSegment::ensure(std::size_t bytes) {
  std::string failure;
  if (bytes > reserve_) {
    failure = "needs " + mib(bytes) + " of shared memory, more than the " + mib(reserve_) + " reserved";
  } else if (creator_ && bytes > size_) {
    if (ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
      failure = "ftruncate to " + mib(bytes) + " failed: " + errno_text(errno);
    } else if (int e = posix_fallocate(fd_, 0, static_cast<off_t>(bytes)); e != 0) {
      failure = "cannot reserve " + mib(bytes) + " in /dev/shm (" + dev_shm_free() + " free): " + errno_text(e);
      if (ftruncate(fd_, static_cast<off_t>(size_)) != 0) failure += "; shrinking it back failed too";
    }
  }
  const std::string agreed = first_failure(world_, failure, "growing the shared-memory segment");
  if (!agreed.empty())
    throw EnvironmentError("host backend, several processes: the shared-memory segment " + agreed +
                           ". Enlarge /dev/shm (docker run --shm-size, or mount -o remount,size=...) or run "
                           "smaller sizes (-e)");
  if (bytes > size_) size_ = bytes;
}

}  // namespace arbench
