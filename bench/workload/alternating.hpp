// AlternatingBuffers: two buffers of one input behind one RankBuffers, so the ops of a timed phase
// read two input sets in turn (docs/method.md, "Correctness every case").
//
// Inside a timed phase the check sees only the last op's output. If every op read the same
// inputs, a kernel block that reads a peer's slot left over from the previous op (a flag it did
// not wait for) would get the same numbers: the right answer, and a time too good. With the ops
// alternating between set A and set B, the previous op's slot holds the other set's data, so such
// a read leaves a wrong element the check after the timed ops sees.
//
// Each rank flips its own selection before each of its ops (Workload::before_op, called by the
// harness's op); every rank runs the same number of ops, so the ranks stay in step and a peer's
// pointer (peer(rank, p)) is taken from the same set as the rank's own. Variants read local() and
// peer() when they launch an op (and a CUDA graph captures the pointers of each op it records).
// Each rank's selection is touched only by that rank's thread while ops run.
#pragma once

#include <memory>
#include <vector>

#include "arbench/fabric.hpp"

namespace arbench {

class AlternatingBuffers final : public RankBuffers {
 public:
  AlternatingBuffers(std::unique_ptr<RankBuffers> a, std::unique_ptr<RankBuffers> b, int world)
      : a_(std::move(a)), b_(std::move(b)), set_(std::size_t(world), 0), next_(std::size_t(world), 0) {}
  std::size_t bytes() const override { return a_->bytes(); }
  bool symmetric() const override { return a_->symmetric(); }
  void* local(int rank) const override { return set(rank).local(rank); }
  void* peer(int rank, int peer) const override { return set(rank).peer(rank, peer); }
  std::vector<const RankBuffers*> alternatives() const override { return {a_.get(), b_.get()}; }

  // Set `s` (0: A, 1: B) of every rank, as the workload fills it.
  RankBuffers& buffers(int s) const { return s == 0 ? *a_ : *b_; }
  // Which set `rank`'s next op reads; alternate(false): always A.
  void alternate(bool on) {
    on_ = on;
    std::fill(set_.begin(), set_.end(), 0);
    std::fill(next_.begin(), next_.end(), 0);
  }
  bool alternating() const { return on_; }
  // Before each of `rank`'s ops: that op reads the next set.
  void before_op(int rank) {
    if (!on_) return;
    const auto r = std::size_t(rank);
    set_[r] = next_[r];
    next_[r] ^= 1;
  }
  // The set `rank`'s last op read (0: A, 1: B).
  int current(int rank) const { return set_.at(std::size_t(rank)); }

 private:
  const RankBuffers& set(int rank) const { return current(rank) == 0 ? *a_ : *b_; }
  std::unique_ptr<RankBuffers> a_, b_;
  bool on_ = false;
  std::vector<int> set_, next_;
};

}  // namespace arbench
