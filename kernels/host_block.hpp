// HostBlock: the threads of one block of a block-faithful host twin, and the barrier that stands
// in for __syncthreads / __syncthreads_and among them.
//
// Each CPU thread that runs a twin block's threads knows its block through a thread-local
// pointer (current(), set by HostGrid). HostMem::block_sync and block_all call into it; on a
// thread with no block (the sequential twin: one thread runs a whole block) they stay no-ops.
// The barrier is a mutex and a condition variable, so under ThreadSanitizer it orders what the
// threads wrote before it with what they read after it, exactly as __syncthreads does.
// A thread that returns from the kernel body leaves the block (as an exited GPU thread no
// longer holds a barrier up), so threads that diverge around a barrier cannot hang the block.
// Every wait is bounded: past the bound the barrier breaks and every waiter throws CaseError.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace arbench {

class HostBlock {
 public:
  // `rank`, `block`: for messages. `bound_s`: the longest a thread may wait at the barrier.
  HostBlock(int rank, int block, int threads, double bound_s);

  // Before a launch (no thread of the block is running): every thread is a member again.
  void reset();
  // __syncthreads_and: waits until every member arrived; true when every member passed true.
  bool sync_and(bool ok);
  // The calling thread returned from the kernel body.
  void leave();

  static HostBlock* current() { return current_; }
  static void set_current(HostBlock* b) { current_ = b; }

 private:
  void release_locked();  // the last member arrived (or left): open the barrier

  const int rank_, block_, threads_;
  const double bound_s_;
  std::mutex mu_;
  std::condition_variable cv_;
  int members_ = 0;
  int arrived_ = 0;
  bool all_ok_ = true;   // AND of this round's flags so far
  bool result_ = true;   // the last completed round's AND
  bool broken_ = false;  // a wait expired: every later barrier of this launch throws
  std::uint64_t round_ = 0;
  static thread_local HostBlock* current_;
};

}  // namespace arbench
