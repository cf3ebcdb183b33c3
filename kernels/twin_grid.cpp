#include "kernels/twin_grid.hpp"

#include <thread>

#include "arbench/core/errors.hpp"

namespace arbench {

void TwinGrids::choose(int host_threads, bool allowed, const std::string& variant) {
  if (host_threads != 0 && !allowed)
    throw CaseError(variant + ": --host-threads " + std::to_string(host_threads) +
                    " is not a block size its launch policy allows (see `arbench run --help`)");
  threads_ = host_threads;
}

int TwinGrids::sms(int sequential_sms) const {
  if (!faithful()) return sequential_sms;
  if (opt_.sms > 0) return opt_.sms;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

void TwinGrids::prepare(int world, std::size_t shared_bytes, double timeout_s) {
  shared_bytes_ = shared_bytes;
  // A thread waits at a block barrier while another finishes a bounded wait (timeout_s), so
  // anything much beyond that is a protocol fault, never a slow peer.
  bound_s_ = 2 * timeout_s + 10.0;
  grids_.clear();
  grids_.resize(static_cast<std::size_t>(world));
  sequential_shared_.clear();
  if (!faithful())
    for (int r = 0; r < world; ++r)
      sequential_shared_.push_back(std::make_unique<std::byte[]>(shared_bytes > 0 ? shared_bytes : 1));
}

HostGrid& TwinGrids::grid_for(int rank, int blocks) {
  auto& g = grids_[static_cast<std::size_t>(rank)];
  if (!g || g->blocks() != blocks) g = std::make_unique<HostGrid>(rank, blocks, threads_, shared_bytes_, bound_s_);
  return *g;
}

}  // namespace arbench
