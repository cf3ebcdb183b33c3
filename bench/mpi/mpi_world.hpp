// MpiWorld: the World of an MPI run (MPI_COMM_WORLD), one process per rank. Every collective is
// MPI's non-blocking one, polled until done or until wait_bound_s() runs out; then the process
// says where it waited and ends the run with MPI_Abort (the last resort: a process that is
// stuck or gone cannot be waited for).
#pragma once

#include <mpi.h>

#include "arbench/world.hpp"

namespace arbench {

class MpiWorld final : public World {
 public:
  // MPI_Init_thread (FUNNELED: only the main thread calls MPI), then the layout: host names,
  // nodes (MPI_Comm_split_type SHARED) and the node-local rank.
  MpiWorld(int* argc, char*** argv, const std::string& launcher);
  ~MpiWorld() override;  // MPI_Finalize
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const WorldLayout& layout() const override { return layout_; }
  double wait_bound_s() const override { return bound_s_; }
  void set_wait_bound_s(double s) override { bound_s_ = s; }

  void barrier(const char* what) override;
  void max(std::vector<double>& values, const char* what) override;
  std::vector<std::string> all_gather(const std::string& mine, const char* what) override;
  void broadcast(std::string& bytes, int root, const char* what) override;
  [[noreturn]] void abort(int exit_code, const std::string& why) override;

 private:
  // Polls `req` until it completes; abort()s after wait_bound_s().
  void wait(MPI_Request& req, const char* what);

  int rank_ = 0, size_ = 1;
  double bound_s_ = 60.0;
  WorldLayout layout_;
};

}  // namespace arbench
