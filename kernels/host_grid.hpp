// HostGrid: one rank's kernel launches in a block-faithful host twin: `blocks` blocks of
// `threads` CPU threads each, all running at once, the way a GPU runs a grid.
//
// The threads (a ThreadTeam) are made once per case and wait for launches. launch(body) runs
// body(BlockCtx, shared) on every thread of every block and returns when all returned: the
// caller's writes before launch() happen before every thread's reads, and every thread's writes
// before launch() returns (a kernel launch and a stream sync). Each block has its HostBlock
// (block_sync / block_all, see host_block.hpp) and `shared_bytes` of block-shared memory (what
// the kernel declares __shared__), zero-filled once. The first exception a thread throws is
// rethrown by launch().
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "arbench/algo/mem_policy.hpp"
#include "kernels/host_block.hpp"
#include "kernels/thread_team.hpp"

namespace arbench {

class HostGrid {
 public:
  using Body = std::function<void(const algo::BlockCtx& c, void* shared)>;

  // `bound_s`: the longest a thread may wait at a block barrier; a launch waits at most twice
  // that plus a minute before it stops the process (a twin that does not bound its waits).
  HostGrid(int rank, int blocks, int threads, std::size_t shared_bytes, double bound_s);

  void launch(const Body& body);

  int blocks() const { return blocks_; }
  int threads() const { return threads_; }

 private:
  const int rank_, blocks_, threads_;
  const double bound_s_;
  std::vector<std::unique_ptr<HostBlock>> block_;
  std::vector<std::unique_ptr<std::byte[]>> shared_;
  ThreadTeam team_;  // last: its threads use the blocks
};

}  // namespace arbench
