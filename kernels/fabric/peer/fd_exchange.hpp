// How the processes of one node hand each other file descriptors: the cuda provider's
// allocations travel between processes as POSIX file descriptors (cuMemExportToShareableHandle),
// and a descriptor only means something inside the process that holds it, so it is passed over
// a Unix-domain socket (SCM_RIGHTS): the kernel installs a descriptor for the same open file in
// the receiver. This is what torch symmetric memory does (its IpcChannel); the socket names are
// agreed over the World, as the shm fabric agrees its segment's name.
//
// Bounded: every send and receive gives up at one deadline, and the processes agree, over the
// World, on the first failure, so all of them return the descriptors or all throw the same error.
// Host code only (no CUDA): tests/host/fabric/test_fd_exchange.cpp passes memfds between threads
// of one process, tests/mpi between 2..4 processes.
#pragma once

#include <string>
#include <vector>

#include "arbench/world.hpp"

namespace arbench {

// A file descriptor closed when it goes out of scope.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.release();
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset();

 private:
  int fd_ = -1;
};

// Every process's `fd`, indexed by world rank: for a peer, a descriptor of this process for the
// peer's open file; for this process, a duplicate of `fd`. Collective over `w` (one node);
// `what` names the step in messages. Throws CaseError, the same on every process, when a socket
// cannot be made or a descriptor does not arrive within `timeout_s`.
std::vector<UniqueFd> all_gather_fds(World& w, int fd, double timeout_s, const char* what);

}  // namespace arbench
