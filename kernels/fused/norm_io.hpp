// One rank's residual-add + RMSNorm pointers, taken from the fused workload's buffers alike by the
// fused variants (fused_variant.hpp) and the fused island variants (island_variant.hpp).
#pragma once

#include "arbench/algo/rmsnorm.hpp"
#include "arbench/variant.hpp"

namespace arbench {

// Whether the workload gave every buffer the norm reads or writes besides x.
inline bool has_norm_buffers(const OpBuffers& b) { return b.residual && b.weight && b.norm_out && b.residual_out; }

// Rank `rank`'s residual, weight and outputs for a row of `hidden` elements (the mirrors stay null:
// a kernel that stages rows through its scratch sets them).
inline algo::NormIo norm_io_of(const OpBuffers& b, int rank, int hidden, float eps) {
  algo::NormIo io;
  io.residual = b.residual->local(rank);
  io.weight = b.weight->local(rank);
  io.norm_out = b.norm_out->local(rank);
  io.residual_out = b.residual_out->local(rank);
  io.hidden = hidden;
  io.eps = eps;
  return io;
}

}  // namespace arbench
