#include "kernels/fabric/peer/arena_slicer.hpp"

#include <algorithm>
#include <stdexcept>

namespace arbench {

std::string slice_text(const Slice& s) {
  return "chunk " + std::to_string(s.chunk) + " @ " + std::to_string(s.offset) + " + " + std::to_string(s.bytes);
}

void ArenaSlicer::add_chunk(std::size_t bytes) {
  if (bytes == 0 || bytes % kSliceAlignment != 0)
    throw std::logic_error("an arena chunk of " + std::to_string(bytes) + " bytes is not a multiple of " +
                           std::to_string(kSliceAlignment));
  Chunk c;
  c.bytes = bytes;
  c.free[0] = bytes;
  chunks_.push_back(std::move(c));
}

std::optional<Slice> ArenaSlicer::take(std::size_t bytes) {
  const std::size_t need = slice_bytes(bytes);
  for (std::size_t i = 0; i < chunks_.size(); ++i) {
    Chunk& c = chunks_[i];
    for (auto it = c.free.begin(); it != c.free.end(); ++it) {
      if (it->second < need) continue;
      const std::size_t offset = it->first, left = it->second - need;
      c.free.erase(it);
      if (left > 0) c.free[offset + need] = left;
      c.taken[offset] = need;
      live_ += need;
      high_water_ = std::max(high_water_, live_);
      return Slice{i, offset, need};
    }
  }
  return std::nullopt;
}

void ArenaSlicer::give_back(const Slice& s) {
  if (s.chunk >= chunks_.size()) throw std::logic_error("gave back a slice of no chunk: " + slice_text(s));
  Chunk& c = chunks_[s.chunk];
  const auto t = c.taken.find(s.offset);
  if (t == c.taken.end() || t->second != s.bytes)
    throw std::logic_error("gave back a slice that was not handed out: " + slice_text(s));
  c.taken.erase(t);
  live_ -= s.bytes;
  std::size_t offset = s.offset, length = s.bytes;
  // Merge with the free range just after, then the one just before.
  if (auto next = c.free.find(offset + length); next != c.free.end()) {
    length += next->second;
    c.free.erase(next);
  }
  if (auto next = c.free.lower_bound(offset); next != c.free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      length += prev->second;
      c.free.erase(prev);
    }
  }
  c.free[offset] = length;
}

std::size_t ArenaSlicer::capacity() const {
  std::size_t n = 0;
  for (const Chunk& c : chunks_) n += c.bytes;
  return n;
}

std::size_t ArenaSlicer::live_slices() const {
  std::size_t n = 0;
  for (const Chunk& c : chunks_) n += c.taken.size();
  return n;
}

std::size_t ArenaSlicer::live_bytes() const {
  std::size_t n = 0;
  for (const Chunk& c : chunks_)
    for (const auto& [offset, length] : c.taken) n += length;
  return n;
}

std::size_t ArenaSlicer::largest_free() const {
  std::size_t best = 0;
  for (const Chunk& c : chunks_)
    for (const auto& [offset, length] : c.free) best = std::max(best, length);
  return best;
}

}  // namespace arbench
