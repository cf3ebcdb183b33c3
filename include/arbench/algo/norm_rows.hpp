// The norm-only block (second kernel of unfused-nccl and unfused-oneshot): residual add +
// RMSNorm of the all-reduce output, rows split over blocks, no peer access and no waits.
#pragma once

#include "arbench/algo/fused_layout.hpp"
#include "arbench/algo/partition.hpp"

namespace arbench::algo {

template <class Mem, DType D>
ARB_HD void norm_rows_block(const NormArgs& a, const BlockCtx& c, float* lanes) {
  const Range rows = block_share<Mem>(Range{0, static_cast<std::size_t>(a.tokens)}, c);
  for (std::size_t row = rows.begin; row < rows.end; ++row)
    add_norm_row<Mem, D>(a.io, row, c, lanes,
                         [&](std::size_t k) { return load_row_pack<D>(a.sum, a.io.hidden, row, k); });
}

}  // namespace arbench::algo
