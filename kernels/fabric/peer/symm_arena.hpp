// SymmArena: a fabric's symmetric memory, one arena per rank, sliced per buffer (host logic over
// a PeerProvider; tested on CPUs with a fake driver: tests/host/fabric/test_symm_arena.cpp).
//
// A fabric maps its arena once, sized for the sweep's largest case (reserve()), and every
// symmetric buffer of every case is a slice of it (arena_slicer.hpp): no registration per case.
// A buffer that does not fit grows the arena by another chunk (a collective map). With several
// processes every alloc() is collective too: each process slices its own copy of the arena
// the same way, and the processes check, over the World, that they got the same slice.
//
// Release is bounded: a buffer gives its slice back, and the arena unmaps its chunks, only once
// the fabric's streams are idle (ArenaHooks::idle waits with a bound); otherwise the memory
// stays mapped until the process exits, rather than be freed under a running kernel.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arbench/fabric.hpp"
#include "arbench/world.hpp"
#include "kernels/fabric/peer/arena_slicer.hpp"
#include "kernels/fabric/peer/peer_provider.hpp"

namespace arbench {

// What the arena asks of its fabric.
struct ArenaHooks {
  // Zero-fills `bytes` at `ptr`, `rank`'s own copy, and waits for it (bounded; throws HangError).
  std::function<void(int rank, void* ptr, std::size_t bytes)> zero;
  // Waits (bounded) until nothing the fabric launched can still touch the arena; false when
  // something may (a stream still busy): the memory is then left as it is.
  std::function<bool()> idle;
};

// The ranks an arena spans: world ranks first .. first + local - 1 are this process's.
struct ArenaRanks {
  int first = 0;
  int local = 1;
  int world = 1;
};

class SymmArena {
 public:
  // `processes`: the World the ranks' processes form (solo_world() for one process).
  SymmArena(std::unique_ptr<PeerProvider> provider, ArenaHooks hooks, ArenaRanks ranks, World& processes);
  ~SymmArena();
  SymmArena(const SymmArena&) = delete;
  SymmArena& operator=(const SymmArena&) = delete;

  // A zero-filled symmetric buffer of `bytes` on every rank (Fabric::alloc with
  // Placement::symmetric). Collective. Throws PeerMapRefused / EnvironmentError when the arena
  // must grow and cannot.
  std::unique_ptr<RankBuffers> alloc(std::size_t bytes);
  // Makes room for buffers of `bytes` together (slice_bytes() each, summed), mapping one chunk
  // for all of them when the free space is short. Collective.
  void reserve(std::size_t bytes);

  std::string_view provider() const { return provider_->name(); }
  std::size_t capacity() const { return slicer_.capacity(); }
  std::size_t chunks() const { return slicer_.chunks(); }
  std::size_t live_buffers() const { return slicer_.live_slices(); }
  // The most bytes per rank its buffers ever held at once.
  std::size_t high_water() const { return slicer_.high_water(); }
  // "cuda arena, 2 chunks, 66 MiB per rank" for banners.
  std::string describe() const;

 private:
  friend class ArenaBuffers;
  void grow(std::size_t bytes);
  void give_back(const Slice& s);
  std::size_t local_index(int rank) const;
  bool drives(int rank) const { return rank >= ranks_.first && rank < ranks_.first + ranks_.local; }
  void* address(const Slice& s, int rank, int peer) const;

  std::unique_ptr<PeerProvider> provider_;
  ArenaHooks hooks_;
  ArenaRanks ranks_;
  World& processes_;
  ArenaSlicer slicer_;
  std::vector<PeerChunk> chunks_;
};

// One symmetric buffer: a slice of the arena, the same chunk and offset on every rank.
class ArenaBuffers final : public RankBuffers {
 public:
  ArenaBuffers(SymmArena& arena, Slice slice, std::size_t bytes) : arena_(arena), slice_(slice), bytes_(bytes) {}
  ~ArenaBuffers() override { arena_.give_back(slice_); }
  std::size_t bytes() const override { return bytes_; }
  bool symmetric() const override { return true; }
  void* local(int rank) const override;
  void* peer(int rank, int peer) const override { return arena_.address(slice_, rank, peer); }
  const Slice& slice() const { return slice_; }

 private:
  SymmArena& arena_;
  Slice slice_;
  std::size_t bytes_;
};

}  // namespace arbench
