// What the all-reduce workloads (workload.cpp: exact inputs; workload_lossy.cpp: FP8 on the wire)
// hold and fill alike: the input twice, so the ops of a timed phase read two sets in turn
// (alternating.hpp), and the output apart unless the case is in place. Each fill writes every
// input set in use, then poisons the output, so an element no op wrote fails the check.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "workload/alternating.hpp"
#include "workload/workload.hpp"

namespace arbench {

class AllReduceWorkloadBase : public Workload {
 public:
  const OpBuffers& buffers() const override { return bufs_; }
  void before_op(int rank) override { in_->before_op(rank); }

  // Every set in use, and the output poisoned (0xff bytes: NaN in bf16, fp16, fp32).
  void fill(Fabric& f) override {
    in_->alternate(alternating());
    for (int s = 0; s < (alternating() ? 2 : 1); ++s) fill_set(f, s);
    if (c_.in_place) return;
    const std::vector<std::uint8_t> poison(c_.bytes, 0xff);
    for (int r = 0; r < world_; ++r)
      if (f.drives(r)) f.upload(r, bufs_.out->local(r), poison.data(), c_.bytes);
  }

 protected:
  // The derived workload's constructor fills the buffers (fill_set is its own).
  AllReduceWorkloadBase(const Case& c, Fabric& f, Placement placement, std::uint64_t seed)
      : Workload(seed), c_(c), world_(f.world()) {
    in_ = std::make_unique<AlternatingBuffers>(f.alloc(c.bytes, placement), f.alloc(c.bytes, placement), world_);
    if (!c.in_place) out_ = f.alloc(c.bytes, placement);
    bufs_.in = in_.get();
    bufs_.out = c.in_place ? static_cast<RankBuffers*>(in_.get()) : out_.get();
  }

  // Writes input set `set` (0: A, 1: B) of the ranks this process drives, and keeps its answer.
  virtual void fill_set(Fabric& f, int set) = 0;

  Case c_;
  int world_;
  std::unique_ptr<AlternatingBuffers> in_;
  std::unique_ptr<RankBuffers> out_;
  OpBuffers bufs_;
};

}  // namespace arbench
