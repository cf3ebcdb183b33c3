// The copy-engine variants' policy: chunk, staging slots, copy streams and the reduce kernel's
// grid, and the configurations a user names (`ce-ring[chunk:4M]`, `ce-twoshot[streams:2]`,
// `ce-ring[chunk:1M/streams:2]`). Host code, tested on the host.
//
// The default chunk: a segment is cut into about kTargetChunks chunks (so copies and reduces
// overlap), no larger than kMaxChunk, and no smaller than the copy-engine rate allows. Each chunk
// pays a fixed cost besides its copy (kChunkOverheadUs: the copy's launch on the engine, a flag
// write, a stream wait and a reduce launch), so its copy should take kCopyOverOverhead times that
// cost at least: then the fixed cost is at most ~10% of the copy (the floor's 10% goal). Where the
// run knows the copy-engine rate R of one flow (GB/s: --links FILE or the pattern probe, the
// fastest flow measured at the case's world size, Tuning::copy_engine_gbps), the smallest chunk
// is R x kChunkOverheadUs x kCopyOverOverhead rounded up to a power of two (25 GB/s: 1 MiB,
// 50 GB/s: 2 MiB); without a rate it is kMinChunk, what PCIe Gen5's 25-50 GB/s per flow give at
// a 1 us fixed cost. The chosen chunk and where it came from are the case's settings.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "arbench/algo/ce/ce_program.hpp"
#include "arbench/algo/partition.hpp"

namespace arbench::algo {

struct CeConfig {
  std::size_t chunk = 0;  // bytes; 0: the policy
  int streams = 0;        // copy streams per rank; 0: the policy (1)
  int slots = 0;          // staging slots per link; 0: the policy (2)
};

// Where a case's chunk came from (the setting `ce_chunk_source`).
enum class CeChunkSource : std::uint8_t { configuration, rates, fixed };

struct CePolicy {
  static constexpr std::size_t kMinChunk = 256u << 10;
  static constexpr std::size_t kMaxChunk = 4u << 20;
  static constexpr std::size_t kTargetChunks = 4;
  static constexpr double kChunkOverheadUs = 4.0;
  static constexpr double kCopyOverOverhead = 10.0;
  static constexpr int kSlots = 2;
  static constexpr int kStreams = 1;
  // The reduce kernel: at most kReduceBlocks CTAs of kReduceThreads (its `sms`): it reads the
  // rank's own memory only, far faster than the copies can fill it.
  static constexpr int kReduceThreads = 256;
  static constexpr int kReduceBlocks = 16;

  // The smallest chunk whose copy at `rate_gbps` takes kCopyOverOverhead x kChunkOverheadUs (bytes,
  // a power of two); kMinChunk without a rate (<= 0).
  static std::size_t min_chunk_bytes(double rate_gbps) {
    if (!(rate_gbps > 0)) return kMinChunk;
    const double want = rate_gbps * 1e3 * kChunkOverheadUs * kCopyOverOverhead;  // GB/s x us = 1e3 bytes
    std::size_t c = kPackBytes;
    while (double(c) < want && c < (std::size_t{1} << 34)) c *= 2;
    return c;
  }
  // Chunk (in packs) of a case whose largest segment has `segment_packs` packs: `asked_bytes` (a
  // configuration) when given, else the policy at copy-engine rate `rate_gbps` (<= 0: unknown).
  static std::size_t chunk_packs(std::size_t segment_packs, std::size_t asked_bytes, double rate_gbps = 0) {
    if (asked_bytes > 0) return (asked_bytes + kPackBytes - 1) / kPackBytes;
    const std::size_t want = (segment_packs + kTargetChunks - 1) / kTargetChunks;
    const std::size_t lo = min_chunk_bytes(rate_gbps) / kPackBytes;
    const std::size_t hi = std::max(lo, kMaxChunk / kPackBytes);
    const std::size_t c = want < lo ? lo : (want > hi ? hi : want);
    return c < 1 ? 1 : c;
  }
  static CeChunkSource chunk_source(std::size_t asked_bytes, double rate_gbps) {
    return asked_bytes > 0 ? CeChunkSource::configuration : rate_gbps > 0 ? CeChunkSource::rates : CeChunkSource::fixed;
  }
  static int reduce_blocks(std::size_t packs) {
    const std::size_t per_block = static_cast<std::size_t>(kReduceThreads) * 4;  // 4 packs per thread at least
    const std::size_t b = (packs + per_block - 1) / per_block;
    return b < 1 ? 1 : (b > static_cast<std::size_t>(kReduceBlocks) ? kReduceBlocks : static_cast<int>(b));
  }
};

// The geometry of a case: `world` ranks, `packs` of a `bytes`-byte message in dtype `t`; the
// copy-engine rate of one flow `rate_gbps` (<= 0: unknown) sets the default chunk.
inline CeGeometry ce_geometry(int world, DType t, std::size_t bytes, const CeConfig& cfg, double rate_gbps = 0) {
  CeGeometry g;
  g.world = world;
  g.dtype = t;
  g.bytes = bytes;
  g.packs = (bytes + kPackBytes - 1) / kPackBytes;
  g.chunk_packs = CePolicy::chunk_packs(split_range(g.packs, world, 0).size(), cfg.chunk, rate_gbps);
  g.slots = cfg.slots > 0 ? cfg.slots : CePolicy::kSlots;
  g.copy_streams = cfg.streams > 0 ? cfg.streams : CePolicy::kStreams;
  return g;
}

// "256K", "4M", "65536" as bytes; nullopt for anything else (or 0).
inline std::optional<std::size_t> parse_ce_bytes(std::string_view s) {
  std::size_t scale = 1;
  if (!s.empty() && (s.back() == 'K' || s.back() == 'M')) {
    scale = s.back() == 'K' ? (1u << 10) : (1u << 20);
    s.remove_suffix(1);
  }
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v == 0 || v > (std::size_t{1} << 40) / scale) return std::nullopt;
  return v * scale;
}

// A configuration: `key:value` items joined by '/', keys chunk (bytes, a multiple of 16),
// streams (1..kCeMaxStreams) and slots (1..16), each at most once; nullopt when it is not one.
inline std::optional<CeConfig> parse_ce_config(std::string_view text) {
  CeConfig c;
  if (text.empty()) return std::nullopt;
  while (!text.empty()) {
    const std::size_t slash = text.find('/');
    const std::string_view item = text.substr(0, slash);
    text = slash == std::string_view::npos ? std::string_view{} : text.substr(slash + 1);
    if (slash != std::string_view::npos && text.empty()) return std::nullopt;
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view key = item.substr(0, colon), value = item.substr(colon + 1);
    const auto n = parse_ce_bytes(value);
    if (!n) return std::nullopt;
    if (key == "chunk" && c.chunk == 0 && *n % kPackBytes == 0) {
      c.chunk = *n;
    } else if (key == "streams" && c.streams == 0 && *n <= static_cast<std::size_t>(kCeMaxStreams)) {
      c.streams = static_cast<int>(*n);
    } else if (key == "slots" && c.slots == 0 && *n <= 16) {
      c.slots = static_cast<int>(*n);
    } else {
      return std::nullopt;
    }
  }
  return c;
}

}  // namespace arbench::algo
