// Case: one benchmark = variant × dtype × world size × shape. Its name is a stable,
// parseable key, e.g. `allreduce/oneshot-push/bf16/gpus:8/bytes:65536` or
// `allreduce_rmsnorm/fused-oneshot/bf16/gpus:8/tokens:16/hidden:8192`; optional trailing fields,
// in this order: `/inplace` (output overwrites the input), `/skew:<µs>` (an arrival skew, --skew),
// `/cold` (caches flushed before every sample, --cache cold) and `/symm:<provider>` (the custom
// kernel's symmetric memory from that provider, `cuda` or `nccl`: --symm-mem all).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "arbench/core/dtype.hpp"

namespace arbench {

enum class Family : std::uint8_t { allreduce, allreduce_rmsnorm };

constexpr std::string_view family_name(Family f) {
  return f == Family::allreduce ? "allreduce" : "allreduce_rmsnorm";
}
std::optional<Family> parse_family(std::string_view s);

struct Case {
  std::string variant;  // registry name, may carry a configuration: `nccl[ring/ll]`
  Family family = Family::allreduce;
  DType dtype = DType::bf16;
  int world = 1;
  std::size_t bytes = 0;  // allreduce: message size; rmsnorm: tokens*hidden*dtype_size
  int tokens = 0;         // allreduce_rmsnorm only
  int hidden = 0;         // allreduce_rmsnorm only
  bool in_place = false;  // output overwrites the input
  double skew_us = 0;     // arrival skew: rank r starts r/(world-1) * skew_us µs late (0: together)
  bool cold_cache = false;  // --cache cold: caches flushed before every timed sample
  // The symmetric-memory provider the case names (`cuda` or `nccl`, docs/variants.md); empty: the
  // run's choice (--symm-mem), which the case's result records.
  std::string symm = {};

  std::size_t elements() const { return bytes / dtype_size(dtype); }
  std::string name() const;
  // Inverse of name(); nullopt (and a reason in *why) for anything name() cannot produce.
  static std::optional<Case> parse(std::string_view name, std::string* why = nullptr);
  bool operator==(const Case&) const = default;
};

// nccl-tests definitions: algbw = bytes / t; busbw = algbw * 2(N-1)/N. GB/s = 1e9 bytes/s.
double algbw_gbps(std::size_t bytes, double seconds);
double busbw_gbps(std::size_t bytes, double seconds, int world);

}  // namespace arbench
