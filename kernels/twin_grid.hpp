// TwinGrids: how a host twin runs one launch of its kernel for one rank, in one of two modes.
//
//   sequential (Tuning::host_threads == 0; the default of `--backend host` sweeps, the faster):
//     the rank's own thread runs block 0, 1, ... one after another, each as thread 0 of 1
//     (BlockCtx{b, blocks, 0, 1}); block_sync is a no-op and block_all returns its argument.
//     It relies on every protocol letting block b wait only for block b of its peers, and
//     never needing two threads of one block to progress together.
//   block-faithful (host_threads = T >= 1; `arbench run --host-threads T`, the tsan tests):
//     every block is T CPU threads and all blocks of all ranks run at once (HostGrid);
//     block_sync and block_all are real barriers over the block's threads, and block-shared
//     memory is one array per block shared by its threads. The grid is the kernel's: the
//     twin asks the kernel's launch policy, with the host's cores as the SM count.
// Both run the same protocol functions with the same BlockCtx as the kernel; only the
// execution differs.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "arbench/algo/mem_policy.hpp"
#include "kernels/host_grid.hpp"

namespace arbench {

// Knobs of the block-faithful mode that tests set; production uses the defaults.
struct TwinOptions {
  int sms = 0;  // the SM count handed to the launch policies; 0: the host's CPU cores
};

class TwinGrids {
 public:
  explicit TwinGrids(TwinOptions opt = {}) : opt_(opt) {}

  // First thing in a twin's prepare(): the mode Tuning::host_threads asks for (0: sequential),
  // which the kernel's launch policy must allow (`allowed`); else a CaseError naming `variant`.
  void choose(int host_threads, bool allowed, const std::string& variant);
  // The SM count for the kernel's launch policy: block-faithful, TwinOptions::sms or the host's
  // CPU cores; sequential, `sequential_sms` (a stand-in that keeps multi-block paths tested).
  int sms(int sequential_sms) const;
  // Once the grid is known: `shared_bytes` of block-shared memory per block, `timeout_s` the
  // fabric's wait bound (block barriers wait at most about twice that).
  void prepare(int world, std::size_t shared_bytes, double timeout_s);

  bool faithful() const { return threads_ > 0; }
  int threads() const { return faithful() ? threads_ : 1; }

  // One launch of `blocks` blocks for `rank`, called on that rank's thread: body(c, shared)
  // runs every block (and, block-faithful, every thread of it). body returns false after a
  // recorded error; the sequential mode then skips the rank's remaining blocks (their peers
  // time out on their own, as they would wait for a rank that stopped).
  template <class Body>
  void launch(int rank, int blocks, Body&& body) {
    if (!faithful()) {
      void* shared = sequential_shared_[static_cast<std::size_t>(rank)].get();
      for (int b = 0; b < blocks; ++b)
        if (!body(algo::BlockCtx{b, blocks, 0, 1}, shared)) return;
      return;
    }
    grid_for(rank, blocks).launch([&](const algo::BlockCtx& c, void* shared) { body(c, shared); });
  }

 private:
  // The rank's grid of `blocks` blocks, made on its first launch (each rank's own thread makes
  // and uses its own, so the ranks need no lock).
  HostGrid& grid_for(int rank, int blocks);

  TwinOptions opt_;
  int threads_ = 0;
  std::size_t shared_bytes_ = 0;
  double bound_s_ = 0;
  std::vector<std::unique_ptr<HostGrid>> grids_;                 // block-faithful, per rank
  std::vector<std::unique_ptr<std::byte[]>> sequential_shared_;  // sequential, per rank
};

}  // namespace arbench
