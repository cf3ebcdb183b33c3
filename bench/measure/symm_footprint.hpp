// How much of a fabric's symmetric arena one case takes, per rank (kernels/fabric/peer/
// symm_arena.hpp): every buffer the workload puts in symmetric memory (when the variant asks for
// symmetric buffers) and the variant's scratch, each rounded to a whole slice, plus a few slices'
// slack for a variant whose scratch is several buffers. The run reserves the largest of these
// (Fabric::reserve_symmetric) before its first case, so no case maps memory of its own.
// tests/host/measure/test_symm_footprint.cpp runs every variant on an arena of exactly this size.
#pragma once

#include <cstddef>

#include "arbench/core/case.hpp"
#include "arbench/fabric.hpp"
#include "arbench/variant.hpp"

namespace arbench {

// Slices of slack per case: a variant may split its scratch_bytes_per_rank() into this many
// symmetric buffers, each rounded up to a slice (e.g. `reference`: flags and scratch).
inline constexpr std::size_t kFootprintSlackSlices = 4;

std::size_t symmetric_bytes_per_rank(const Case& c, const Variant& v, const Fabric& f, const Tuning& t);

}  // namespace arbench
