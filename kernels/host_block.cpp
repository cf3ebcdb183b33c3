#include "kernels/host_block.hpp"

#include <chrono>
#include <string>

#include "arbench/core/errors.hpp"

namespace arbench {

thread_local HostBlock* HostBlock::current_ = nullptr;

HostBlock::HostBlock(int rank, int block, int threads, double bound_s)
    : rank_(rank), block_(block), threads_(threads), bound_s_(bound_s) {
  reset();
}

void HostBlock::reset() {
  std::lock_guard lk(mu_);
  members_ = threads_;
  arrived_ = 0;
  all_ok_ = true;
  broken_ = false;
}

void HostBlock::release_locked() {
  result_ = all_ok_;
  all_ok_ = true;
  arrived_ = 0;
  ++round_;
  cv_.notify_all();
}

bool HostBlock::sync_and(bool ok) {
  std::unique_lock lk(mu_);
  auto broken = [&] {
    return CaseError("host twin: rank " + std::to_string(rank_) + " block " + std::to_string(block_) + ": " +
                     std::to_string(arrived_) + " of " + std::to_string(members_) + " threads waited " +
                     std::to_string(bound_s_) + " s at a block barrier the others never reached (the threads "
                     "of the block diverged around block_sync, or one is stuck)");
  };
  if (broken_) throw broken();
  all_ok_ = all_ok_ && ok;
  if (++arrived_ == members_) {
    release_locked();
    return result_;
  }
  const std::uint64_t round = round_;
  if (!cv_.wait_for(lk, std::chrono::duration<double>(bound_s_), [&] { return round_ != round || broken_; }) ||
      round_ == round) {
    broken_ = true;
    cv_.notify_all();
    throw broken();
  }
  // No later round can have completed meanwhile: it needs this thread to arrive again.
  return result_;
}

void HostBlock::leave() {
  std::lock_guard lk(mu_);
  --members_;
  if (arrived_ > 0 && arrived_ == members_) release_locked();
}

}  // namespace arbench
