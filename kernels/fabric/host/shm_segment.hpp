// ShmSegment: one POSIX shared-memory segment mapped by every process of a one-node World, at
// whatever address each process gets (peers are reached through per-process pointers).
//
// Lifetime: node-local rank 0 creates it (shm_open O_EXCL, a name unique to the run), the name
// is broadcast, every process opens and maps it, and once all have mapped it the creator unlinks
// the name. From then on nothing outlives the processes: whether they exit, fail or are killed,
// /dev/shm holds no arbench segment. The file keeps growing (ftruncate + posix_fallocate, so a
// full /dev/shm is an error message, not a SIGBUS) inside one large address reservation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "arbench/world.hpp"

namespace arbench {

class ShmSegment {
 public:
  // Collective. Throws EnvironmentError (on every process) when the segment cannot be made.
  ShmSegment(World& world, std::size_t reserve_bytes);
  ~ShmSegment();
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;

  std::uint8_t* base() const { return base_; }
  std::size_t size() const { return size_; }
  const std::string& name() const { return name_; }
  // Collective: grows the segment to at least `bytes` (the creator does, everyone learns the
  // outcome); throws EnvironmentError on every process when /dev/shm is too small.
  void ensure(std::size_t bytes);

 private:
  void release();  // unmaps and closes (the name is already unlinked)

  World& world_;
  std::string name_;
  int fd_ = -1;
  std::uint8_t* base_ = nullptr;
  std::size_t reserve_ = 0;
  std::size_t size_ = 0;
  bool creator_ = false;
};

}  // namespace arbench
