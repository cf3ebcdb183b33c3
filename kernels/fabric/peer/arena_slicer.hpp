// ArenaSlicer: which part of a symmetric arena each buffer gets (host logic, tested without a
// GPU: tests/host/fabric/test_arena_slicer.cpp).
//
// An arena is one or more chunks, each mapped on every rank at once (peer_provider.hpp). A
// buffer is a slice of one chunk: the same chunk and offset on every rank, so a rank finds any
// peer's copy at the peer's chunk base plus the offset. Every process of a multi-process run
// keeps its own slicer and makes the same calls in the same order, so the slicers agree without
// talking; the arena checks that they do (symm_arena.cpp).
//
// First fit: the lowest chunk, then the lowest offset, where the slice fits; freed slices merge
// with free neighbours. Deterministic by construction (no addresses, no clocks, no randomness).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace arbench {

// Every slice starts on this boundary: 16-byte packs, and cudaMalloc's 256-byte alignment, which
// code written for plain device buffers may take for granted.
inline constexpr std::size_t kSliceAlignment = 256;

// What one buffer of `bytes` takes from an arena (a zero-byte buffer still takes one slot).
constexpr std::size_t slice_bytes(std::size_t bytes) {
  const std::size_t b = bytes == 0 ? 1 : bytes;
  return (b + kSliceAlignment - 1) / kSliceAlignment * kSliceAlignment;
}

struct Slice {
  std::size_t chunk = 0;
  std::size_t offset = 0;
  std::size_t bytes = 0;  // slice_bytes() of what was asked
  bool operator==(const Slice&) const = default;
};

// "chunk 1 @ 4096 + 512", for messages and the processes' agreement check.
std::string slice_text(const Slice& s);

class ArenaSlicer {
 public:
  // A new chunk of `bytes` (a multiple of kSliceAlignment), after the others.
  void add_chunk(std::size_t bytes);
  // A slice for `bytes`, first fit; nullopt when no chunk has room.
  std::optional<Slice> take(std::size_t bytes);
  // Returns a slice take() handed out; throws std::logic_error for anything else.
  void give_back(const Slice& s);

  std::size_t chunks() const { return chunks_.size(); }
  std::size_t capacity() const;      // bytes of every chunk together
  std::size_t live_slices() const;   // handed out, not given back
  std::size_t live_bytes() const;
  // The largest slice take() could hand out now.
  std::size_t largest_free() const;
  // The most bytes ever handed out at once.
  std::size_t high_water() const { return high_water_; }

 private:
  struct Chunk {
    std::size_t bytes = 0;
    std::map<std::size_t, std::size_t> free;   // offset -> length, merged
    std::map<std::size_t, std::size_t> taken;  // offset -> length
  };
  std::vector<Chunk> chunks_;
  std::size_t live_ = 0, high_water_ = 0;
};

}  // namespace arbench
