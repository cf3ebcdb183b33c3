#include "kernels/host_grid.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "arbench/core/errors.hpp"

namespace arbench {
namespace {

std::vector<std::unique_ptr<HostBlock>> make_blocks(int rank, int blocks, int threads, double bound_s) {
  std::vector<std::unique_ptr<HostBlock>> out;
  for (int b = 0; b < blocks; ++b) out.push_back(std::make_unique<HostBlock>(rank, b, threads, bound_s));
  return out;
}

}  // namespace

HostGrid::HostGrid(int rank, int blocks, int threads, std::size_t shared_bytes, double bound_s)
    : rank_(rank),
      blocks_(blocks),
      threads_(threads),
      bound_s_(bound_s),
      block_(make_blocks(rank, blocks, threads, bound_s)),
      team_(blocks * threads, [this](int i) { HostBlock::set_current(block_[static_cast<std::size_t>(i / threads_)].get()); }) {
  for (int b = 0; b < blocks; ++b)
    shared_.push_back(std::make_unique<std::byte[]>(shared_bytes > 0 ? shared_bytes : 1));  // zero-filled
}

void HostGrid::launch(const Body& body) {
  for (auto& b : block_) b->reset();
  const auto bound = std::chrono::duration<double>(2 * bound_s_ + 60.0);
  team_.run(
      [&](int i) {
        const int b = i / threads_;
        HostBlock& hb = *block_[static_cast<std::size_t>(b)];
        try {
          body(algo::BlockCtx{b, blocks_, i % threads_, threads_}, shared_[static_cast<std::size_t>(b)].get());
        } catch (...) {
          hb.leave();
          throw;
        }
        hb.leave();
      },
      bound, [&](int running) {
        std::fprintf(stderr,
                     "arbench: host twin: rank %d: %d of %d threads still running after %.0f s; a protocol "
                     "wait is not bounded. Aborting.\n",
                     rank_, running, team_.size(), bound.count());
        std::_Exit(kExitFailure);
      });
}

}  // namespace arbench
