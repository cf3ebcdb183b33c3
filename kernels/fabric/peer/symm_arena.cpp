#include "kernels/fabric/peer/symm_arena.hpp"

#include <algorithm>
#include <cstdio>

namespace arbench {
namespace {

std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }

std::string mib(std::size_t bytes) {
  const double m = double(bytes) / double(1 << 20);
  char s[32];
  std::snprintf(s, sizeof s, m < 10 ? "%.1f MiB" : "%.0f MiB", m);
  return s;
}

}  // namespace

SymmArena::SymmArena(std::unique_ptr<PeerProvider> provider, ArenaHooks hooks, ArenaRanks ranks, World& processes)
    : provider_(std::move(provider)), hooks_(std::move(hooks)), ranks_(ranks), processes_(processes) {}

SymmArena::~SymmArena() {
  if (chunks_.empty()) return;
  const char* why = nullptr;
  if (slicer_.live_slices() > 0)
    why = "some of its buffers were never released (a kernel may still use them)";
  else if (!hooks_.idle())
    why = "a stream that ran kernels on it is still busy";
  if (why != nullptr) {
    std::fprintf(stderr, "arbench: the %.*s symmetric arena (%zu bytes per rank) is left mapped: %s\n",
                 int(provider_->name().size()), provider_->name().data(), slicer_.capacity(), why);
    return;
  }
  provider_->release_all();
}

std::string SymmArena::describe() const {
  return std::string(provider_->name()) + " arena, " + std::to_string(chunks_.size()) +
         (chunks_.size() == 1 ? " chunk, " : " chunks, ") + mib(slicer_.capacity()) + " per rank";
}

void SymmArena::grow(std::size_t bytes) {
  const std::size_t chunk = round_up(std::max<std::size_t>(bytes, 1), provider_->granularity());
  // A chunk that fails to map is released by the provider; the earlier ones stay usable.
  PeerChunk mapped = provider_->map(chunk);
  if (mapped.bytes != chunk || mapped.base.size() != std::size_t(ranks_.local))
    throw EnvironmentError("the " + std::string(provider_->name()) + " provider mapped a chunk of another shape");
  chunks_.push_back(std::move(mapped));
  slicer_.add_chunk(chunk);
}

void SymmArena::reserve(std::size_t bytes) {
  if (bytes == 0 || slicer_.largest_free() >= bytes) return;
  grow(bytes);
}

std::unique_ptr<RankBuffers> SymmArena::alloc(std::size_t bytes) {
  std::optional<Slice> s = slicer_.take(bytes);
  if (!s) {
    grow(slice_bytes(bytes));
    s = slicer_.take(bytes);
    if (!s) throw EnvironmentError("a new arena chunk has no room for " + std::to_string(bytes) + " bytes");
  }
  // The buffer exists from here on: it gives its slice back whatever happens next.
  auto buffers = std::make_unique<ArenaBuffers>(*this, *s, bytes);
  if (processes_.multi_process()) {
    const std::string mine = slice_text(*s);
    const auto all = processes_.all_gather(mine, "agreeing on a symmetric buffer's place in the arena");
    for (std::size_t p = 1; p < all.size(); ++p)  // the same message on every process
      if (all[p] != all[0])
        throw CaseError("the processes placed a symmetric buffer differently (process 0: " + all[0] + ", process " +
                        std::to_string(p) + ": " + all[p] +
                        "): their allocations diverged, so their peer addresses would be wrong");
  }
  for (int r = ranks_.first; r < ranks_.first + ranks_.local; ++r) hooks_.zero(r, buffers->local(r), s->bytes);
  return buffers;
}

void SymmArena::give_back(const Slice& s) {
  // A kernel may still read or write the slice: reuse it only once the streams are idle.
  if (!hooks_.idle()) {
    std::fprintf(stderr, "arbench: a symmetric buffer (%s) is left allocated: a stream is still busy\n",
                 slice_text(s).c_str());
    return;
  }
  slicer_.give_back(s);
}

std::size_t SymmArena::local_index(int rank) const {
  if (!drives(rank))
    throw CaseError("rank " + std::to_string(rank) + " is driven by another process: its arena is not addressed here");
  return std::size_t(rank - ranks_.first);
}

void* SymmArena::address(const Slice& s, int rank, int peer) const {
  if (peer < 0 || peer >= ranks_.world)
    throw CaseError("peer " + std::to_string(peer) + " outside the world of " + std::to_string(ranks_.world));
  char* base = static_cast<char*>(chunks_.at(s.chunk).base.at(local_index(rank)).at(std::size_t(peer)));
  return base + s.offset;
}

void* ArenaBuffers::local(int rank) const {
  return arena_.drives(rank) ? arena_.address(slice_, rank, rank) : nullptr;
}

}  // namespace arbench
