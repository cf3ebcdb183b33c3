// The norm-only block (second kernel of unfused-nccl and unfused-oneshot): residual add +
// RMSNorm of the all-reduce output, rows split over blocks, no peer access and no waits.
#pragma once

#include "arbench/algo/fused/fused_layout.hpp"
#include "arbench/algo/partition.hpp"
#include "arbench/algo/phase_record.hpp"

namespace arbench::algo {

// Phase marks of the norm kernel, at NormArgs::first_mark on: it started (after the all-reduce's
// exit: the gap between the two kernels, which fusion removes, counts as waiting), finished its
// rows, and every thread of the block was done.
inline constexpr PhaseMark kNormMarks[] = {
    {"norm_entry", PhaseBucket::wait}, {"normed", PhaseBucket::reduce}, {"exit", PhaseBucket::exit}};

template <class Mem, DType D>
ARB_HD void norm_rows_block(const NormArgs& a, const BlockCtx& c, float* lanes) {
  phase_mark<Mem>(a.phases, c, a.first_mark);
  const Range rows = block_share<Mem>(Range{0, static_cast<std::size_t>(a.tokens)}, c);
  for (std::size_t row = rows.begin; row < rows.end; ++row)
    add_norm_row<Mem, D>(a.io, row, c, lanes,
                         [&](std::size_t k) { return load_row_pack<D>(a.sum, a.io.hidden, row, k); });
  if (a.phases == nullptr) return;  // the same for every thread of the block
  phase_mark<Mem>(a.phases, c, a.first_mark + 1);
  Mem::block_sync();
  phase_mark<Mem>(a.phases, c, a.first_mark + 2);
}

}  // namespace arbench::algo
