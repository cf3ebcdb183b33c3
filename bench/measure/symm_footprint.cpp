#include "measure/symm_footprint.hpp"

#include "kernels/fabric/peer/arena_slicer.hpp"
#include "workload/workload.hpp"

namespace arbench {

std::size_t symmetric_bytes_per_rank(const Case& c, const Variant& v, const Fabric& f, const Tuning& t) {
  std::size_t bytes = 0;
  if (v.buffer_placement() == Placement::symmetric)
    for (std::size_t b : workload_footprint(c).buffers) bytes += slice_bytes(b);
  // The variant's scratch and state: an upper bound (its state is local memory, counted anyway).
  bytes += slice_bytes(v.scratch_bytes_per_rank(c, f, t)) + kFootprintSlackSlices * kSliceAlignment;
  return bytes;
}

}  // namespace arbench
